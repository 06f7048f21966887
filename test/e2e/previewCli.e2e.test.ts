// Previews from the CLI as a pipeline runs them (issue 43, item 4): `flipbook publish --slug S
// --preview NAME` with --wait, --json, --markdown and a GitHub Actions job's files, then `flipbook
// preview list|delete|promote`, their errors and exit codes. The real binary against one real
// daemon (embedded store, two workers), on a slug whose live version is a corpus document with
// its second page removed (qpdf): the preview, the whole document, has that page inserted. Three
// processings in all: the live version, the preview, and one that fails (a password-protected
// PDF). Last, the built client package lists previews on the machine's Node 20.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient } from '../../packages/cli/build.ts';
import type { Preview, PreviewList } from '../../packages/cli/src/client/apiClient.ts';
import { previewMarkdown } from '../../packages/cli/src/previewReport.ts';
import { PREVIEW_NAME_RULE } from '../../src/domain/flipbook/previews.ts';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { type CliResult, flipbook } from '../support/cli.ts';
import { run, systemNode } from '../support/clientInstall.ts';
import { corpus } from '../support/corpus.ts';

const WHOLE = corpus('text_multicolumn.pdf'); // 3 pages
const ENCRYPTED = corpus('enc_issue3371.pdf'); // needs a password: processing ends in error
const SLUG = 'price-list';

let fx: ApiFixture;
let dir: string;
/** the live version's file: WHOLE without its page 2 */
let live: string;
/** the client package as built for npm, on its way while the daemon starts */
let built: Promise<string>;

/** No saved login, no runner files unless a test names them (the suite may run on GitHub). */
const env = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  XDG_CONFIG_HOME: dir,
  FLIPBOOK_URL: fx.daemon.url,
  FLIPBOOK_API_KEY: fx.key,
  GITHUB_STEP_SUMMARY: undefined,
  GITHUB_OUTPUT: undefined,
  ...more,
});
const cli = (args: string[], more: NodeJS.ProcessEnv = {}) => flipbook(args, env(more));
const ok = (result: CliResult) => {
  if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stderr}${result.stdout}`);
  return result;
};
const api = async <T>(path: string) => {
  const answer = await fetch(`${fx.api}${path}`, {
    headers: { authorization: `Bearer ${fx.key}` },
  });
  expect(answer.status, path).toBe(200);
  return (await answer.json()) as T;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flipbook-preview-cli-'));
  live = join(dir, 'live.pdf');
  built = buildClient(join(dir, 'package', 'dist')).then(() => join(dir, 'package', 'dist'));
  [fx] = await Promise.all([
    startApi('embedded', ['--workers', '2', '--rate-limit', '0']),
    promisify(execFile)('qpdf', [WHOLE, '--pages', WHOLE, '1,3', '--', live]),
  ]);
}, 60_000);

afterAll(async () => {
  await built?.catch(() => {});
  await fx?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('previews from the CLI', { timeout: 60_000 }, () => {
  let preview: Preview;

  it('usage errors say what is wrong before anything is sent: exit 2', async () => {
    const [noSlug, badName, markdownAlone, listNoSlug, deleteBadName] = await Promise.all([
      cli(['publish', WHOLE, '--preview', 'pr-1']),
      cli(['publish', WHOLE, '--slug', SLUG, '--preview', '.hidden']),
      cli(['publish', WHOLE, '--slug', SLUG, '--markdown', join(dir, 'x.md')]),
      cli(['preview', 'list']),
      cli(['preview', 'delete', '--slug', SLUG, 'PR 1']),
    ]);
    expect(noSlug.code).toBe(2);
    expect(noSlug.stderr).toMatch(/--preview needs --slug: a preview is one of the flipbook/);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain(`--preview: ${PREVIEW_NAME_RULE}`);
    expect(markdownAlone.code).toBe(2);
    expect(markdownAlone.stderr).toMatch(/--markdown is for a preview/);
    expect(listNoSlug.code).toBe(2);
    expect(listNoSlug.stderr).toMatch(/--slug/);
    expect(deleteBadName.code).toBe(2);
    expect(deleteBadName.stderr).toContain(PREVIEW_NAME_RULE);
    for (const run of [noSlug, badName, markdownAlone, listNoSlug, deleteBadName]) {
      expect(run.stdout).toBe('');
    }
    // and nothing was made: the slug has no flipbook
    const missing = await cli(['preview', 'list', '--slug', SLUG]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('flipbook: Flipbook not found\n');
  });

  it('publish --preview --wait --json --markdown: the preview with its comparison; the comment; the job’s summary and outputs', async () => {
    ok(await cli(['publish', live, '--slug', SLUG, '--wait']));
    const summary = join(dir, 'step-summary.md');
    const output = join(dir, 'output');
    await writeFile(output, 'earlier=step\n');
    const markdown = join(dir, 'comment.md');
    const result = ok(
      await cli(
        [
          ...['publish', WHOLE, '--slug', SLUG, '--preview', 'pr-1', '--wait', '--json'],
          ...['--timeout', '40', '--markdown', markdown],
        ],
        { GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: output },
      ),
    );
    // stdout: the preview's GET answer, one line, nothing else
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    preview = JSON.parse(result.stdout) as Preview;
    expect(preview).toMatchObject({ name: 'pr-1', status: 'done', pages: 3 });
    expect(preview.preview_url).toMatch(new RegExp(`^${fx.daemon.url}/p/`));
    expect(preview.compare).toMatchObject({
      pages_before: 2,
      pages_after: 3,
      inserted: [2],
      removed: [],
      changed: [],
      unchanged: 2,
    });
    // the comment is the report's one definition, of that very answer
    const comment = previewMarkdown(preview, { slug: SLUG });
    expect(await readFile(markdown, 'utf8')).toBe(comment);
    expect(comment).toContain('1 page inserted');
    expect(await readFile(summary, 'utf8')).toBe(comment);
    expect(await readFile(output, 'utf8')).toBe(
      `earlier=step\npreview-url=${preview.preview_url}\nchanged-pages=1\nsummary=1 page inserted\n`,
    );
    // the progress went to stderr
    expect(result.stderr).toMatch(/status: done \(3 pages\)/);
  });

  it('preview list: a table of the slug’s previews, or the API’s answer with --json', async () => {
    const [table, listed] = await Promise.all([
      cli(['preview', 'list', '--slug', SLUG]).then(ok),
      cli(['preview', 'list', '--slug', SLUG, '--json']).then(ok),
    ]);
    const [head, row, ...rest] = table.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(head?.split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'PAGES', 'CHANGES', 'UPDATED', 'URL']);
    expect(row?.split(/\s{2,}/)).toEqual([
      'pr-1',
      'done',
      '3',
      '1 page inserted',
      preview.updated_at,
      preview.preview_url,
    ]);
    expect((JSON.parse(listed.stdout) as PreviewList).previews).toEqual([preview]);
  });

  it('a preview that fails: exit 3 after its URL and why; promote refuses it (409, exit 1); delete, then 404', async () => {
    const failed = await cli([
      'publish',
      ENCRYPTED,
      '--slug',
      SLUG,
      '--preview',
      'broken',
      '--wait',
    ]);
    expect(failed.code, failed.stderr).toBe(3);
    const [url, why, ...more] = failed.stdout.trimEnd().split('\n');
    expect(url).toMatch(new RegExp(`^${fx.daemon.url}/p/`));
    expect(why).toMatch(/^Processing failed: .*password/);
    expect(more).toEqual([]);
    expect(failed.stderr).toMatch(/flipbook: Processing ended in error: .*password/);

    const refused = await cli(['preview', 'promote', '--slug', SLUG, 'broken']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `flipbook: Preview broken failed processing: only a processed preview can be promoted; push a new version to it\n`,
    );
    expect(refused.stdout).toBe('');

    const deleted = ok(await cli(['preview', 'delete', '--slug', SLUG, 'broken']));
    expect(deleted.stdout).toBe(`deleted preview broken of ${SLUG}\n`);
    const again = await cli(['preview', 'delete', '--slug', SLUG, 'broken']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('flipbook: Preview not found\n');
  });

  it('preview promote: exactly the reviewed version goes live; the reader URL printed', async () => {
    const promoted = ok(await cli(['preview', 'promote', '--slug', SLUG, 'pr-1']));
    const book = await api<{ url: string; versions: { id: string; is_active: boolean }[] }>(
      `/flipbooks/${preview.flipbook_id}`,
    );
    expect(promoted.stdout).toBe(`${book.url}\n`);
    expect(book.versions.filter((v) => v.is_active).map((v) => v.id)).toEqual([preview.version_id]);
    expect((await api<PreviewList>(`/flipbooks/by-slug/${SLUG}/previews`)).previews).toEqual([]);
    const gone = await cli(['preview', 'promote', '--slug', SLUG, 'pr-1']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe('flipbook: Preview not found\n');
  });

  it('publish --preview without --wait: the URL alone, outputs without a count; listed on Node 20 by the built package', async () => {
    const output = join(dir, 'output-2');
    const published = ok(
      await cli(['publish', WHOLE, '--slug', SLUG, '--preview', 'pr-2'], { GITHUB_OUTPUT: output }),
    );
    const [url, ...more] = published.stdout.trimEnd().split('\n');
    expect(more).toEqual([]);
    expect(await readFile(output, 'utf8')).toMatch(
      new RegExp(`^preview-url=${url}\nchanged-pages=\nsummary=(Processing…|Comparing…)\n$`),
    );
    // The package a pipeline installs, on the machine's own Node (20 here and in CI).
    const listed = await run(
      systemNode(),
      [join(await built, 'flipbook.mjs'), 'preview', 'list', '--slug', SLUG, '--json'],
      env({ PATH: process.env.PATH }),
    );
    expect(
      (JSON.parse(ok(listed).stdout) as PreviewList).previews.map((p) => [p.name, p.preview_url]),
    ).toEqual([['pr-2', url]]);
  });
});
