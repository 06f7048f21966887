// What `flipbook publish --preview` leaves for a GitHub Actions job
// (packages/cli/src/githubRunner.ts): outputs in $GITHUB_OUTPUT's format (a multi-line value in
// the heredoc form, with a delimiter the value cannot end early), and the report and outputs
// appended to the runner's files, after what other steps wrote.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Preview } from '../../packages/cli/src/client/apiClient.ts';
import {
  appendToRunner,
  githubOutputText,
  previewOutputs,
  runnerFiles,
} from '../../packages/cli/src/githubRunner.ts';
import { commentMarker } from '../../packages/cli/src/previewReport.ts';

const URL = 'https://flipbooks.example.com/p/tok3n';
const preview = (fields: Partial<Preview> = {}): Preview => ({
  name: 'pr-7',
  flipbook_id: '6f1c2a9e-0d4b-4c39-9a57-3f2b8e1d7c40',
  version_id: '0b5e3a1c-9d2f-4e6a-8c71-2f4d6b8a0e13',
  status: 'done',
  pages: 12,
  pages_done: 12,
  preview_url: URL,
  created_at: '2025-01-02T03:04:05.000Z',
  updated_at: '2025-01-02T03:04:05.000Z',
  reading: { opens: 0, readers: 0, read_seconds: 0 },
  compare: null,
  ...fields,
});
const page = (n: number) => ({
  before: n,
  after: n,
  regions: [[0.1, 0.2, 0.3, 0.05]],
  compare_url: `${URL}#compare=${n}`,
  before_image: `${URL}/before/${n}.webp`,
  after_image: `${URL}/after/${n}.webp`,
  diff_image: `${URL}/diff/${n}.webp`,
});
const compared = {
  against_version_id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  pages_before: 12,
  pages_after: 12,
  changed: [page(2), page(5), page(9)],
  inserted: [4],
  removed: [7],
  moved: [{ before: 10, after: 11 }],
  unchanged: 7,
};

describe('the outputs of a preview', () => {
  it('counts changed, inserted and removed pages; the summary is the printed line', () => {
    expect(previewOutputs(preview({ compare: compared }))).toEqual({
      'preview-url': URL,
      'changed-pages': '5',
      summary: '3 pages changed, 1 inserted, 1 removed, 1 moved',
    });
  });

  it('not compared yet (no --wait), or not comparable: no count, the summary says why', () => {
    expect(previewOutputs(preview({ status: 'processing', pages: 12, pages_done: 3 }))).toEqual({
      'preview-url': URL,
      'changed-pages': '',
      summary: 'Processing…',
    });
    const failure = { ...compared, changed: [], inserted: [], removed: [], moved: [] };
    expect(
      previewOutputs(preview({ compare: { ...failure, failure: 'there is no live version' } })),
    ).toMatchObject({ 'changed-pages': '', summary: 'Not compared: there is no live version' });
    expect(previewOutputs(preview({ compare: failure }))).toMatchObject({
      'changed-pages': '0',
      summary: 'No page changed (12 pages)',
    });
  });
});

describe("$GITHUB_OUTPUT's format", () => {
  it('one line a value: name=value', () => {
    expect(githubOutputText({ 'preview-url': URL, 'changed-pages': '' })).toBe(
      `preview-url=${URL}\nchanged-pages=\n`,
    );
  });

  it('a value over several lines: the heredoc form, its delimiter never inside the value', () => {
    const delimiters = ['EOF', 'EOF', 'END'];
    const text = githubOutputText(
      { summary: 'one\nEOF\nthree', url: URL },
      () => delimiters.shift() ?? 'unused',
    );
    // "EOF" is a line of the value: the next delimiter is taken, twice over
    expect(text).toBe(`summary<<END\none\nEOF\nthree\nEND\nurl=${URL}\n`);
    // by default, a random one as the runner's own toolkit makes
    expect(githubOutputText({ summary: 'a\r\nb' })).toMatch(
      /^summary<<(ghadelimiter_[0-9a-f-]{36})\na\r\nb\n\1\n$/,
    );
  });
});

describe('the runner’s files', () => {
  it('are appended to, after other steps’ lines; absent variables write nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flipbook-runner-'));
    try {
      const files = runnerFiles({
        GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
        GITHUB_OUTPUT: join(dir, 'output'),
      });
      await writeFile(join(dir, 'summary.md'), '# Build\n');
      await writeFile(join(dir, 'output'), 'built=yes\n');
      await appendToRunner(files, preview({ compare: compared }), 'catalogue');
      const summary = await readFile(join(dir, 'summary.md'), 'utf8');
      expect(summary.startsWith(`# Build\n${commentMarker('catalogue')}\n`)).toBe(true);
      expect(summary).toContain('3 pages changed, 1 inserted, 1 removed, 1 moved');
      expect(await readFile(join(dir, 'output'), 'utf8')).toBe(
        `built=yes\npreview-url=${URL}\nchanged-pages=5\nsummary=3 pages changed, 1 inserted, 1 removed, 1 moved\n`,
      );
      expect(runnerFiles({ GITHUB_OUTPUT: '' })).toEqual({
        summary: undefined,
        output: undefined,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
