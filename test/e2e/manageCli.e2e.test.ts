// Managing flipbooks from the CLI as a user runs it: edit, archive, unarchive and delete with
// their exit codes, against a real daemon (one worker, no rate limit). The same rules over HTTP
// are test/spec/manage.spec.test.ts's, in process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFlipbook,
  expectError,
  expectJson,
  pdf,
  SMALL_PDF,
  waitForOutcome,
} from '../support/apiHelpers.ts';
import { flipbook } from '../support/cli.ts';
import { useApi } from '../support/useApi.ts';

describe('managing flipbooks from the CLI', () => {
  const kind = 'postgres';
  const fx = useApi(kind, ['--workers', '1', '--rate-limit', '0']);
  let cliHome: string;
  /** A processed flipbook. */
  const processed = async (fields: Record<string, string> = {}) => {
    const ids = await createFlipbook(fx.c, fields, pdf(SMALL_PDF));
    expect((await waitForOutcome(fx.c, ids.flipbookId, ids.versionId)).status).toBe('done');
    return { ...ids, original: `/files/originals/${ids.versionId}` };
  };
  const web = (path: string) => fetch(`${fx.daemon.url}${path}`, { redirect: 'manual' });
  const cli = (args: string[], key = fx.key) =>
    flipbook(args, {
      XDG_CONFIG_HOME: cliHome,
      FLIPBOOK_URL: fx.daemon.url,
      FLIPBOOK_API_KEY: key,
    });

  beforeAll(async () => {
    cliHome = await mkdtemp(join(tmpdir(), 'flipbook-manage-cli-'));
  });
  afterAll(async () => {
    await rm(cliHome, { recursive: true, force: true });
  });

  // A dozen CLI runs, each a Node start (~1 s alone, several on a loaded machine).
  it('runs edit, archive, unarchive and delete from the CLI, with their exit codes', {
    timeout: 180_000,
  }, async () => {
    const book = await processed({ title: 'By the CLI' });
    const id = book.flipbookId;

    let run = await cli(['edit', id, '--title', 'Renamed', '--slug', 'renamed-cli', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id, title: 'Renamed', slug: 'renamed-cli' });

    run = await cli(['edit', id, '--description', 'From the terminal']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Renamed');
    expect((await fx.c.flipbook(id)).body.description).toBe('From the terminal');

    run = await cli(['edit', id, '--download', 'off']);
    expect(run.code, run.stderr).toBe(0);
    expect((await web(book.original)).status).toBe(404);
    run = await cli(['edit', id, '--download', 'on']);
    expect(run.code, run.stderr).toBe(0);
    expect((await web(book.original)).status).toBe(200);

    // usage errors: exit 2, nothing sent
    run = await cli(['edit', id]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/nothing to change/);
    run = await cli(['edit', id, '--download', 'maybe']);
    expect(run.code).toBe(2);
    // the server's refusal: exit 1 with its message
    run = await cli(['edit', id, '--slug', 'Not A Slug']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Invalid slug/);
    expect((await fx.c.flipbook(id)).body.slug).toBe('renamed-cli');

    run = await cli(['archive', id]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('archived');
    expect((await web(`/f/${id}`)).status).toBe(410);
    run = await cli(['unarchive', id, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).status).toBe('published');
    expect((await web(`/f/${id}`)).status).toBe(200);

    // not on a terminal and no --yes: refused, nothing deleted
    run = await cli(['delete', id]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--yes/);
    expectJson(await fx.c.flipbook(id), 200);

    run = await cli(['delete', id, '--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(id);
    expectError(await fx.c.flipbook(id), 404);
    run = await cli(['delete', id, '--yes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/not found/i);
    // another workspace's key cannot reach it either
    run = await cli(
      ['archive', (await createFlipbook(fx.c)).flipbookId],
      (await fx.newWorkspace(`cli-${kind}`)).key,
    );
    expect(run.code).toBe(1);
  });
});
