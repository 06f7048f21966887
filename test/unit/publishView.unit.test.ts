// The terminal view of `flipbook publish`: each stage of an upload drawn as text (no terminal,
// no server). `now` is passed in, so the rate and the time left are exact.
import { render } from 'ink-testing-library';
import { createElement as h } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { PublishView, type ViewState } from '../../packages/cli/src/ui/PublishView.ts';

const MB = 1024 * 1024;
const T0 = 1_700_000_000_000;

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

const frame = (state: ViewState, now: number) => {
  const view = render(h(PublishView, { state, now }));
  unmount = view.unmount;
  return view.lastFrame() ?? '';
};
/** A one-megabyte upload of `file`, sent whole, started at T0; then the processing fields given. */
const sent = (file: string, processing: Omit<ViewState, 'file' | 'sent' | 'total' | 'startedAt'>) =>
  ({ file, sent: MB, total: MB, startedAt: T0, ...processing }) satisfies ViewState;

describe('PublishView', () => {
  it('mid-upload: bar, percent, MB sent of total, rate and time left', () => {
    // 5 of 20 MB in 2 s: 2.5 MB/s, 15 MB to go, 6 s left.
    const text = frame(
      { file: 'catalogue.pdf', sent: 5 * MB, total: 20 * MB, startedAt: T0 },
      T0 + 2000,
    );
    expect(text).toContain('Uploading catalogue.pdf');
    expect(text).toContain('25%');
    expect(text).toContain('5.0/20.0 MB');
    expect(text).toContain('2.5 MB/s');
    expect(text).toContain('6 s left');
    // 25% of a 30-cell bar: 8 filled (rounded), 22 empty.
    expect(text).toContain(`[${'█'.repeat(8)}${'░'.repeat(22)}]`);
    expect(text).not.toContain('Processing');
  });

  it('at the start: 0%, an empty bar, no division by zero', () => {
    const text = frame({ file: 'a.pdf', sent: 0, total: 0, startedAt: T0 }, T0);
    expect(text).toContain('0%');
    expect(text).toContain(`[${'░'.repeat(30)}]`);
    expect(text).not.toMatch(/NaN|Infinity/);
  });

  it('processing: the upload is complete and the page count shows', () => {
    const text = frame(
      {
        file: 'catalogue.pdf',
        sent: 20 * MB,
        total: 20 * MB,
        startedAt: T0,
        status: 'processing',
        pages: 14,
        pagesDone: 7,
      },
      T0 + 8000,
    );
    expect(text).toContain('Uploaded catalogue.pdf');
    expect(text).toContain(`[${'█'.repeat(30)}] 100%`);
    expect(text).toContain('20.0/20.0 MB');
    // a second bar: pages done of the total
    expect(text).toContain(`Processing [${'█'.repeat(15)}${'░'.repeat(15)}] 7 of 14 pages`);
    // No upload rate or estimate once the upload is over, and no pace before one is known.
    expect(text).not.toContain('MB/s');
    expect(text).not.toContain('left');
  });

  it('processing with a known pace shows it on a line of its own', () => {
    const text = frame(
      sent('catalogue.pdf', {
        status: 'processing',
        pages: 352,
        pagesDone: 120,
        pace: '14.2 pages/s, about 17 s left',
      }),
      T0 + 8000,
    );
    expect(text).toMatch(/120 of 352 pages\n.*14\.2 pages\/s, about 17 s left/);
  });

  it('processing before the page count is known shows no page count', () => {
    const text = frame(sent('a.pdf', { status: 'pending', pages: 0 }), T0 + 1000);
    expect(text).toContain('Processing: pending');
    expect(text).not.toContain('pages');
  });

  it('done', () => {
    const text = frame(sent('catalogue.pdf', { status: 'done', pages: 3 }), T0 + 3000);
    expect(text).toContain('Processing: done (3 pages)');
  });

  it('error, with the note a retry left', () => {
    const text = frame(
      sent('locked.pdf', { status: 'error', note: 'rate limited; retrying in 3 s' }),
      T0 + 3000,
    );
    expect(text).toContain('Processing: error');
    expect(text).toContain('rate limited; retrying in 3 s');
  });

  it('redraws in place as the state changes', () => {
    const state: ViewState = { file: 'a.pdf', sent: 0, total: 4 * MB, startedAt: T0 };
    const view = render(h(PublishView, { state, now: T0 + 1000 }));
    unmount = view.unmount;
    view.rerender(h(PublishView, { state: { ...state, sent: 2 * MB }, now: T0 + 1000 }));
    expect(view.lastFrame()).toContain('50%');
    view.rerender(
      h(PublishView, {
        state: { ...state, sent: 4 * MB, status: 'done', pages: 2 },
        now: T0 + 2000,
      }),
    );
    expect(view.lastFrame()).toContain('Processing: done (2 pages)');
  });
});
