// Releases side by side on one database (issue 40, item 4): an older release started on a newer
// database must change nothing there, and the newer daemons keep answering as before. The older
// releases are the real thing, this repository's code at two commits:
// - the last one before the release guard: it knew nothing of it, and rebuilt the read tables
//   whenever the recorded READ_MODEL_VERSION differed from its own (before the guard, a private
//   book became public on it and the newer daemons answered 500 on every route); the guard view
//   makes PostgreSQL refuse that rebuild;
// - the one before the read tables' last change: it knows the guard, and refuses in words.
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { READ_MODEL_VERSION } from '../../src/readTables/index.ts';
import { SCHEMA_VERSION } from '../../src/store/releaseGuard.ts';
import { DATABASE_TOO_NEW_EXIT } from '../../src/store/storeError.ts';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, createFlipbook, expectJson, send } from '../support/apiHelpers.ts';
import { flipbook, ROOT, startDaemon } from '../support/cli.ts';
import { freshDatabase } from '../support/databases.ts';

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT }).toString().trim();

/** The parent of the first (or last) commit that matched `args`, or a clear failure. */
const parentOf = (what: string, args: string[]) => {
  const found = git('log', '--format=%H', ...args)
    .split('\n')
    .filter(Boolean);
  if (found.length === 0) throw new Error(`no commit ${what}: the clone has no history?`);
  return git('rev-parse', `${found[0]}^`);
};

const OLDER = {
  beforeTheGuard: () =>
    parentOf('added the release guard', ['--diff-filter=A', '--', 'src/store/releaseGuard.ts']),
  beforeTheLastReadModel: () =>
    // (--follow: the file was projections/index.ts before it moved, unchanged, to src/readTables)
    parentOf('changed READ_MODEL_VERSION', [
      '-1',
      '--follow',
      '-G',
      'READ_MODEL_VERSION = ',
      '--',
      'src/readTables/index.ts',
    ]),
};

/** A release's files as they were at its commit, on this checkout's node_modules. */
const checkOut = async (commit: string) => {
  const root = await mkdtemp(join(tmpdir(), 'flipbook-older-release-'));
  const tar = execFileSync('git', ['archive', '--format=tar', commit], {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', root], { input: tar });
  symlinkSync(resolve(ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
};

const readMeta = async (databaseUrl: string) => {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ key: string; value: string }>(
      "SELECT key, value FROM flipbook_meta WHERE key IN ('schema_version', 'read_model_version') ORDER BY key",
    );
    const { rows: counted } = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM emt_messages',
    );
    return {
      meta: Object.fromEntries(rows.map((r) => [r.key, r.value])),
      events: Number(counted[0]?.n),
    };
  } finally {
    await db.end();
  }
};

const setMeta = async (databaseUrl: string, key: string, value: string) => {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('UPDATE flipbook_meta SET value = $2 WHERE key = $1', [key, value]);
  } finally {
    await db.end();
  }
};

describe('an older release on a newer database', () => {
  const roots: string[] = [];
  let api: ApiFixture;
  let databaseUrl = '';

  beforeAll(async () => {
    databaseUrl = await freshDatabase();
    api = await startApi({ databaseUrl });
  });

  afterAll(async () => {
    await api?.stop();
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  test.each([
    // exits 1: PostgreSQL refuses its rebuild (the guard view depends on the read tables)
    [
      'from before the guard',
      OLDER.beforeTheGuard,
      /daemon exited with 1:[\s\S]*cannot drop table \w+ because other objects depend on it/,
    ],
    // exits 78: it knows the guard, and says why
    [
      'that knows the guard',
      OLDER.beforeTheLastReadModel,
      new RegExp(
        `daemon exited with ${DATABASE_TOO_NEW_EXIT}:[\\s\\S]*this database was migrated by a newer flipbook release`,
      ),
    ],
  ])(
    '%s changes nothing there, and the newer daemon keeps answering',
    async (_, commit, refusal) => {
      const olderRoot = await checkOut(commit());
      roots.push(olderRoot);
      const c = client(api.api, api.key);
      const { flipbookId } = await createFlipbook(c, { visibility: 'links', title: 'Board pack' });
      const before = await readMeta(databaseUrl);
      expect(before.meta).toEqual({
        read_model_version: String(READ_MODEL_VERSION),
        schema_version: String(SCHEMA_VERSION),
      });

      const older = await startDaemon(
        ['--database-url', databaseUrl, ...api.blobArgs, '--workers', '0'],
        {},
        [],
        olderRoot,
      ).then(
        async (daemon) => {
          await daemon.stop();
          return 'started';
        },
        (error: Error) => error.message,
      );
      expect(older).toMatch(refusal);
      // ...and so cannot its `flipbook replay`.
      const replay = await flipbook(['replay', '--database-url', databaseUrl], {}, olderRoot);
      expect(replay.code).not.toBe(0);

      expect(await readMeta(databaseUrl)).toEqual(before);
      const listed = await c.list(`search=${encodeURIComponent('Board pack')}`);
      expectJson(listed, 200);
      expect(listed.body.flipbooks.map((item: { id: string }) => item.id)).toContain(flipbookId);
      const shown = await c.flipbook(flipbookId);
      expectJson(shown, 200);
      expect(shown.body.visibility).toBe('links');
      // Still private to a reader with no link.
      expect((await send(`${api.daemon.url}/f/${flipbookId}`)).status).toBe(404);
    },
  );
});

describe('this release on a newer database', () => {
  test('this release refuses, in words and with its own exit code, a database a newer one migrated', async () => {
    const url = await freshDatabase();
    const made = await flipbook(['workspace', 'create', 'acme', '--database-url', url]);
    expect(made.code, made.stderr).toBe(0);
    for (const [key, newer] of [
      ['schema_version', String(SCHEMA_VERSION + 1)],
      ['read_model_version', String(READ_MODEL_VERSION + 1)],
    ] as const) {
      await setMeta(url, key, newer);
      const before = await readMeta(url);
      for (const args of [
        ['serve', '--port', '0', '--workers', '0'],
        ['replay'],
        ['workspace', 'create', 'other'],
      ]) {
        const refused = await flipbook([...args, '--database-url', url]);
        expect(refused.code, refused.stderr).toBe(DATABASE_TOO_NEW_EXIT);
        expect(refused.stderr).toMatch(
          /this database was migrated by a newer flipbook release .*nothing was changed/,
        );
        expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack
      }
      expect(await readMeta(url)).toEqual(before);
      await setMeta(
        url,
        key,
        key === 'schema_version' ? String(SCHEMA_VERSION) : String(READ_MODEL_VERSION),
      );
    }
  });
});
