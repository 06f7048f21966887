// kill -9 during a preview's comparison (issue 43, "Bad input and limits": it is computed once
// after a restart). A daemon on the embedded store compares a preview in which every page of a
// 60-page corpus document changed (a word laid over each: every page's pixels compared and its
// before and marked images kept, a few seconds of work); it is killed once the comparison has
// written some of those images and not yet its compare.json, and started again on the same store.
// The new daemon makes the comparison, and it is recorded exactly once: one PreviewCompared of
// that version in the flipbook's events, one `preview compared` in the logs, and compare.json as
// the API shows it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/domain/pageAlignment.ts';
import { client, expectJson, form, type Json, send, waitActive } from '../support/apiHelpers.ts';
import { type Daemon, flipbook, startDaemon } from '../support/cli.ts';
import { corpus } from '../support/corpus.ts';
import { tempDataDir } from '../support/databases.ts';
import { editsFolder, pagesFrom, withWord } from '../support/editedPdfs.ts';
import { waitFor } from '../support/waitFor.ts';

const PAGES = 60;
const SLUG = 'manual';
const PREVIEW = `/flipbooks/by-slug/${SLUG}/previews/pr-1`;

const daemons: Daemon[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0))
    if (d.process.exitCode === null && d.process.signalCode === null) d.process.kill('SIGKILL');
  for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
});

const exited = (daemon: Daemon) =>
  new Promise<void>((resolve) => {
    if (daemon.process.exitCode !== null || daemon.process.signalCode !== null) resolve();
    else daemon.process.once('exit', () => resolve());
  });

/** A version's files in the embedded store's blob folder (src/blobs/storeOperations.ts). */
const versionFolder = (dataDir: string, versionId: string) =>
  join(dataDir, 'blobs', 'pages', versionId);

/** the pages whose before image the comparison has kept so far */
const keptBefore = (dataDir: string, versionId: string) => {
  const folder = versionFolder(dataDir, versionId);
  if (!existsSync(folder)) return 0;
  return readdirSync(folder).filter((page) => existsSync(join(folder, page, 'before.jpg'))).length;
};

const compared = (daemon: Daemon, versionId: string) =>
  daemon
    .logs()
    .split('\n')
    .filter((line) => line.includes('"msg":"preview compared"') && line.includes(versionId));

describe('a daemon killed while it compares a preview', () => {
  it('compares it after a restart, and records it once', { timeout: 90_000 }, async () => {
    const dir = await editsFolder();
    folders.push(dir);
    const source = corpus('text_why3-manual.pdf');
    const live = await pagesFrom(join(dir, 'live.pdf'), [source, `1-${PAGES}`]);
    const stamped = await withWord(live, '1-z', 'REVIEWED', join(dir, 'stamped.pdf'));

    const dataDir = await tempDataDir();
    const store = ['--data-dir', dataDir];
    expect((await flipbook(['workspace', 'create', 'acme', ...store])).code).toBe(0);
    const issued = await flipbook(['key', 'create', '--workspace', 'acme', '--json', ...store]);
    expect(issued.code, issued.stderr).toBe(0);
    const key = JSON.parse(issued.stdout).key as string;
    const start = async () => {
      const started = await startDaemon([...store, '--rate-limit', '0']);
      daemons.push(started);
      return started;
    };
    const upload = async (daemon: Daemon, path: string, file: string) => {
      const made = await send(`${daemon.url}/api/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form({}, { bytes: new Uint8Array(await readFile(file)), name: 'manual.pdf' }),
      });
      expectJson(made, 201);
      return made.body as Json;
    };

    const first = await start();
    const c = client(`${first.url}/api/v1`, key);
    const published = await upload(first, `/flipbooks/by-slug/${SLUG}/versions`, live);
    await waitActive(c, published.flipbook_id, published.version_id);
    const preview = await upload(first, PREVIEW, stamped);
    const versionId = preview.version_id as string;

    // Mid-comparison: some pages' before images kept, the comparison not written yet.
    const compareFile = join(versionFolder(dataDir, versionId), 'compare.json');
    await waitFor(
      'the comparison to be under way',
      () => (keptBefore(dataDir, versionId) > 0 && !existsSync(compareFile) ? true : undefined),
      60_000,
      20,
    );
    first.process.kill('SIGKILL');
    await exited(first);
    expect(existsSync(compareFile), 'compare.json written before the kill').toBe(false);
    expect(keptBefore(dataDir, versionId)).toBeLessThan(PAGES);
    expect(compared(first, versionId)).toEqual([]);

    // At once, as a supervisor restarts it: the same store (its PostgreSQL still running).
    const second = await start();
    const again = client(`${second.url}/api/v1`, key);
    const shown = await waitFor(
      'the comparison after the restart',
      async () => {
        const reply = await again.get(`${PREVIEW}`);
        expectJson(reply, 200);
        return reply.body.compare ? (reply.body as Json) : undefined;
      },
      45_000,
      100,
    );
    expect(shown.status).toBe('done');
    expect(await second.stop()).toBe(0); // nothing more in flight: what is recorded is all

    // Every page changed, found where the word is; each page's images kept.
    expect(shown.compare).toMatchObject({
      against_version_id: published.version_id,
      pages_before: PAGES,
      pages_after: PAGES,
      inserted: [],
      removed: [],
      moved: [],
      unchanged: 0,
    });
    expect(shown.compare.changed).toHaveLength(PAGES);
    expect(keptBefore(dataDir, versionId)).toBe(PAGES);
    // compare.json is what the API shows
    const file = JSON.parse(readFileSync(compareFile, 'utf8')) as Comparison;
    expect({
      against_version_id: file.againstVersionId,
      pages_before: file.pagesBefore,
      pages_after: file.pagesAfter,
      changed: file.changed.map(({ before, after, regions }) => ({ before, after, regions })),
      inserted: file.inserted,
      removed: file.removed,
      moved: file.moved,
      unchanged: file.unchanged,
    }).toEqual({
      ...shown.compare,
      changed: shown.compare.changed.map(({ before, after, regions }: Json) => ({
        before,
        after,
        regions,
      })),
    });

    // Recorded once: one event, one log line, both the second daemon's.
    const events = await flipbook(['events', preview.flipbook_id, '--json', ...store]);
    expect(events.code, events.stderr).toBe(0);
    const recorded = (JSON.parse(events.stdout) as Json[]).filter(
      (e) => e.type === 'PreviewCompared' && e.data.versionId === versionId,
    );
    expect(recorded).toHaveLength(1);
    expect(recorded[0].data).toMatchObject({ changed: PAGES, inserted: 0, removed: 0 });
    expect(recorded[0].metadata.actor.id).toBe(`${hostname()}:${second.process.pid}`);
    expect(compared(second, versionId)).toHaveLength(1);
  });
});
