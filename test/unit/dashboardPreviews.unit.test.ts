// The Previews section of a flipbook's dashboard page, rendered from the lines its route hands it:
// each state a preview can be in, said in words (processing with pages done, failed with why,
// compared, not compared and why), who pushed it, the buttons each state offers, and every value
// escaped. The states a test cannot hold still with real processing (midway, failed) are here;
// the forms' answers are test/spec/dashboardPreviews.spec.test.ts's.
import { describe, expect, it } from 'vitest';
import type { PreviewLine } from '../../src/app/previews.ts';
import type { Preview } from '../../src/contract/previews.ts';
import { previewsSection } from '../../src/dashboard/pages/previews.ts';
import { cellOf, formActionsOf, rowsOf, textOf } from '../support/dashboardSpec.ts';

const BASE = '/dashboard/flipbooks/6f1c2a9e-0d4b-4c39-9a57-3f2b8e1d7c40';
const URL = 'https://books.example/p/p.9d3e.token';

const preview = (fields: Partial<Preview>): Preview => ({
  name: 'pr-1',
  flipbook_id: '6f1c2a9e-0d4b-4c39-9a57-3f2b8e1d7c40',
  version_id: '9d3e0000-0000-4000-8000-000000000001',
  status: 'done',
  pages: 12,
  pages_done: 12,
  preview_url: URL,
  created_at: '2026-03-04T05:06:07Z',
  updated_at: '2026-03-05T06:07:08Z',
  compare: null,
  reading: { opens: 0, readers: 0, read_seconds: 0 },
  ...fields,
});
const comparison = (fields: Partial<NonNullable<Preview['compare']>> = {}) => ({
  against_version_id: '9d3e0000-0000-4000-8000-000000000002',
  pages_before: 12,
  pages_after: 12,
  changed: [],
  inserted: [],
  removed: [],
  moved: [],
  unchanged: 12,
  ...fields,
});
const line = (fields: Partial<Preview>, pushedBy?: PreviewLine['pushedBy']): PreviewLine => ({
  preview: preview(fields),
  pushedBy: pushedBy ?? { type: 'api_key', id: 'k1234567890', name: 'ci' },
});
const render = (lines: PreviewLine[]) => String(previewsSection(BASE, 'price-list', lines, ''));
const rowOf = (html: string, name: string) => rowsOf(html, name)[0] ?? '';
const pushed = (row: string) =>
  textOf(/<td data-label="Pushed \(UTC\)">([\s\S]*?)<\/td>/.exec(row)?.[1] ?? '');

describe('the dashboard’s Previews section', () => {
  it('says each state in words, with the buttons that state offers', () => {
    const html = render([
      line({ name: 'pr-4', status: 'pending', pages: 0, pages_done: 0 }),
      line({ name: 'pr-3', status: 'processing', pages: 14, pages_done: 2 }),
      line({ name: 'pr-2', status: 'done' }),
      line({
        name: 'pr-1',
        status: 'done',
        compare: comparison({
          changed: [],
          inserted: [5],
          removed: [2, 3],
        }),
      }),
      line({ name: 'pr-0', status: 'error', pages: 0, pages_done: 0, error_reason: 'Damaged' }),
    ]);
    const says = (name: string) => {
      const row = rowOf(html, name);
      return [cellOf(row, 'Status'), cellOf(row, 'Changes')];
    };
    expect(says('pr-4')).toEqual(['Waiting to be processed', 'Processing…']);
    expect(says('pr-3')).toEqual(['Processing: 2 of 14 pages', 'Processing…']);
    expect(says('pr-2')).toEqual(['Processed', 'Comparing…']);
    expect(says('pr-1')).toEqual(['Processed', '1 page inserted, 2 removed']);
    // failed: why, in the status; nothing to compare, nothing to open or promote
    expect(says('pr-0')).toEqual(['Could not be processed Damaged', '—']);

    const actions = (name: string) => formActionsOf(rowOf(html, name));
    const at = (name: string, action: string) => `${BASE}/previews/${name}/${action}`;
    expect(actions('pr-4')).toEqual([at('pr-4', 'delete')]);
    expect(actions('pr-3')).toEqual([at('pr-3', 'delete')]);
    expect(actions('pr-1')).toEqual([at('pr-1', 'promote'), at('pr-1', 'delete')]);
    expect(actions('pr-0')).toEqual([at('pr-0', 'delete')]);
    expect(rowOf(html, 'pr-3')).toContain(`href="${URL}" target="_blank" rel="noopener"`);
    expect(rowOf(html, 'pr-0')).not.toContain(URL);
  });

  it('says a comparison that could not be made, and why', () => {
    const html = render([
      line({ compare: comparison({ against_version_id: null, failure: 'No live version yet' }) }),
    ]);
    expect(cellOf(rowOf(html, 'pr-1'), 'Changes')).toBe('Not compared: No live version yet');
  });

  it('says how often it was read, apart from the book’s figures, once it was', () => {
    const html = render([
      line({
        name: 'pr-read',
        compare: comparison(),
        reading: { opens: 3, readers: 2, read_seconds: 40 },
      }),
      line({ name: 'pr-unread', compare: comparison() }),
    ]);
    expect(cellOf(rowOf(html, 'pr-read'), 'Changes')).toBe(
      'No page changed (12 pages) opened 3 times by 2 readers',
    );
    expect(cellOf(rowOf(html, 'pr-unread'), 'Changes')).toBe('No page changed (12 pages)');
  });

  it('names who pushed it as the Activity names actors', () => {
    const html = render([
      line({ name: 'pr-2' }, { type: 'user', id: 'u', email: 'ann@example.com' }),
      line({ name: 'pr-1' }, { type: 'unknown' }),
      line({ name: 'pr-0' }),
    ]);
    expect(pushed(rowOf(html, 'pr-2'))).toBe('2026-03-05 06:07 by ann@example.com');
    expect(pushed(rowOf(html, 'pr-1'))).toBe(
      '2026-03-05 06:07 by Someone (recorded before the audit trail)',
    );
    expect(pushed(rowOf(html, 'pr-0'))).toBe('2026-03-05 06:07 by API key ci');
  });

  it('escapes what it shows', () => {
    const html = render([
      line(
        { status: 'error', error_reason: '<img src=x onerror=alert(1)>' },
        { type: 'api_key', id: 'k', name: '"><script>alert(2)</script>' },
      ),
    ]);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
  });

  it('with no preview, says how a pipeline makes one for this slug', () => {
    const html = render([]);
    expect(html).not.toContain('<table');
    expect(textOf(html)).toContain(
      'No previews. A pipeline makes one per pull request with flipbook publish FILE --slug price-list --preview pr-128',
    );
  });
});
