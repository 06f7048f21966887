// Progress for a log (packages/cli/src/ui/progressLines.ts): what `publish --wait` writes on stderr
// without a terminal, also with --json (which keeps stdout for the result alone), as plain lines
// or JSON lines, never more than one every 5 s while an upload or a render goes on.
import { describe, expect, it } from 'vitest';
import type { VersionStatus } from '../../packages/cli/src/client/apiClient.ts';
import { progressFormat } from '../../packages/cli/src/clientOptions.ts';
import { type ProgressFormat, progressLines } from '../../packages/cli/src/ui/progressLines.ts';

const MB = 1024 * 1024;

const status = (s: VersionStatus['status'], pages = 0, done = 0): VersionStatus => ({
  version_id: '00000000-0000-4000-8000-000000000001',
  status: s,
  is_active: s === 'done',
  version: 1,
  pages,
  pages_done: done,
  file_name: 'book.pdf',
  file_size: 40 * MB,
  step: s === 'pending' ? 'waiting' : s === 'processing' ? 'rendering' : 'finished',
  ...(s === 'error' ? { error_reason: 'The PDF is password-protected' } : {}),
});

/** A reporter on a clock the test moves, and the lines it wrote. */
const reporter = (format: ProgressFormat) => {
  let now = 0;
  const lines: string[] = [];
  const progress = progressLines(
    format,
    (line) => lines.push(line),
    () => now,
  );
  return { progress, lines, at: (ms: number) => (now = ms) };
};

/** A render of 352 pages polled every second for a minute, from pending to done. */
const render = (r: ReturnType<typeof reporter>) => {
  r.at(0);
  r.progress.onStatus?.(status('pending'));
  for (let second = 1; second <= 60; second++) {
    r.at(second * 1000);
    r.progress.onStatus?.(status('processing', 352, second * 5));
  }
  r.at(61_000);
  r.progress.onStatus?.(status('done', 352, 352));
};

describe('progress lines for a log', () => {
  it('plain: each status once, then at most one line every 5 s with the pace', () => {
    const r = reporter('plain');
    render(r);
    expect(r.lines[0]).toBe('status: pending');
    expect(r.lines[1]).toBe('status: processing (5 of 352 pages)');
    // 60 answers while processing, 12 lines: one each 5 s
    const processing = r.lines.filter((l) => l.startsWith('status: processing'));
    expect(processing).toHaveLength(12);
    expect(processing[2]).toBe(
      'status: processing (55 of 352 pages, 5.0 pages/s, about 60 s left)',
    );
    expect(r.lines.at(-1)).toBe('status: done (352 pages)');
  });

  it('json: one object a line, the same lines, with the pace as numbers', () => {
    const r = reporter('json');
    render(r);
    const objects = r.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects).toHaveLength(14);
    expect(objects[0]).toEqual({ type: 'status', status: 'pending', pages: 0, pages_done: 0 });
    expect(objects[3]).toEqual({
      type: 'status',
      status: 'processing',
      pages: 352,
      pages_done: 55,
      pages_per_second: 5,
      seconds_left: 60,
    });
    expect(objects.at(-1)).toEqual({ type: 'status', status: 'done', pages: 352, pages_done: 352 });
  });

  it('says why a render failed, and what the client is waiting for', () => {
    const r = reporter('json');
    r.progress.onWait?.('rate limited; retrying in 3 s');
    r.progress.onStatus?.(status('error'));
    expect(r.lines.map((l) => JSON.parse(l))).toEqual([
      { type: 'wait', message: 'rate limited; retrying in 3 s' },
      {
        type: 'status',
        status: 'error',
        pages: 0,
        pages_done: 0,
        error_reason: 'The PDF is password-protected',
      },
    ]);
    const plain = reporter('plain');
    plain.progress.onWait?.('rate limited; retrying in 3 s');
    expect(plain.lines).toEqual(['rate limited; retrying in 3 s']);
  });

  it('an upload: nothing under 5 s; a longer one a line every 5 s, and its end', () => {
    const quick = reporter('plain');
    for (const sent of [MB, 2 * MB, 3 * MB]) {
      quick.at(sent / 1000); // 3 MB in 3 s
      quick.progress.onUpload?.(sent, 3 * MB);
    }
    expect(quick.lines).toEqual([]);

    const slow = reporter('plain');
    for (let second = 1; second <= 12; second++) {
      slow.at(second * 1000);
      slow.progress.onUpload?.(second * 2 * MB, 24 * MB); // 2 MB a second for 12 s
    }
    expect(slow.lines).toEqual([
      'upload: 10.0 of 24.0 MB',
      'upload: 20.0 of 24.0 MB',
      'upload: 24.0 of 24.0 MB',
    ]);
    const json = reporter('json');
    json.at(6000);
    json.progress.onUpload?.(12 * MB, 24 * MB);
    expect(JSON.parse(json.lines[0] ?? '')).toEqual({
      type: 'upload',
      sent: 12 * MB,
      total: 24 * MB,
    });
  });

  it('none: nothing at all', () => {
    const r = reporter('none');
    render(r);
    r.progress.onWait?.('rate limited; retrying in 3 s');
    expect(r.lines).toEqual([]);
  });

  it('--progress takes plain, json or none; anything else is a usage error (exit 2)', () => {
    expect(progressFormat({})).toBe('plain');
    expect(progressFormat({ progress: 'JSON' })).toBe('json');
    expect(progressFormat({ progress: 'none', json: true })).toBe('none');
    expect(() => progressFormat({ progress: 'xml' })).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: '--progress must be plain, json, none, got "xml"',
      }),
    );
  });
});
