// Plan quotas under concurrency: simultaneous creates and uploads against a free workspace, on one
// daemon and on two daemons sharing a database. Exactly the limit succeeds; every other request
// gets the 422 limit message; no request sees a 409 or a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  client,
  createFlipbook,
  expectError,
  expectJson,
  type Reply,
} from '../support/apiHelpers.ts';
import { type Daemon, startDaemon } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import { useCleanlyStoppedApi } from '../support/useApi.ts';

const FLIPBOOK_LIMIT = 'Flipbook limit reached: the free plan allows 10 flipbooks';
const VERSION_LIMIT = 'Version limit reached: the free plan allows 20 versions per flipbook';

/** Status → how many answers had it, for a readable failure. */
const tally = (replies: Reply[]) => {
  const counts: Record<number, number> = {};
  for (const r of replies) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};

/** Asserts every answer is a 201 or the 422 limit message, and exactly `ok` are 201s. */
const expectExactly = (replies: Reply[], ok: number, limitMessage: string) => {
  expect(tally(replies)).toEqual({ 201: ok, 422: replies.length - ok });
  for (const reply of replies) {
    if (reply.status === 201) expectJson(reply, 201);
    else expectError(reply, 422, new RegExp(`^${limitMessage}$`));
  }
};

/** The API roots requests go to, in turn: one daemon, or two sharing a database. */
const raceCreates = async (apis: string[], key: string, n: number) =>
  Promise.all(
    Array.from({ length: n }, (_, i) => client(apis[i % apis.length] ?? '', key).create()),
  );

const raceVersions = async (apis: string[], key: string, flipbookId: string, n: number) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      client(apis[i % apis.length] ?? '', key).addVersion(flipbookId),
    ),
  );

const checkRaces = async (fx: ApiFixture, apis: string[], name: string) => {
  const free = await fx.newWorkspace(name, 'free');
  const c = client(fx.api, free.key);

  expectExactly(await raceCreates(apis, free.key, 25), 10, FLIPBOOK_LIMIT);
  const list = await c.list('per_page=100');
  expectJson(list, 200);
  expect(list.body.flipbooks).toHaveLength(10);

  // A flipbook in a second free workspace (the first is full) already has its first version.
  const other = await fx.newWorkspace(`${name}-v`, 'free');
  const { flipbookId } = await createFlipbook(client(fx.api, other.key));
  expectExactly(await raceVersions(apis, other.key, flipbookId, 30), 19, VERSION_LIMIT);
  const flipbook = await client(fx.api, other.key).flipbook(flipbookId);
  expectJson(flipbook, 200);
  expect(flipbook.body.versions).toHaveLength(20);
};

describe('quota races on one daemon (embedded store)', () => {
  const fx = useCleanlyStoppedApi('embedded', ['--rate-limit', '0']);

  it('25 simultaneous creates make exactly 10 flipbooks; 30 uploads make exactly 20 versions', {
    timeout: 120_000,
  }, async () => {
    await checkRaces(fx, [fx.api], 'race-one');
  });
});

describe('quota races across two daemons on one database', () => {
  let fx: ApiFixture;
  let second: Daemon;
  beforeAll(async () => {
    const blobDir = await tempDataDir();
    fx = await startApi('postgres', ['--rate-limit', '0', '--blob-dir', blobDir]);
    second = await startDaemon([
      ...fx.storeArgs,
      '--blob-dir',
      blobDir,
      '--workers',
      '0',
      '--rate-limit',
      '0',
    ]);
  });
  afterAll(async () => {
    if (second) expect(await second.stop()).toBe(0);
    if (fx) expect(await fx.daemon.stop()).toBe(0);
  });

  it('requests spread over both daemons still stop at exactly the limit', {
    timeout: 120_000,
  }, async () => {
    await checkRaces(fx, [fx.api, `${second.url}/api/v1`], 'race-two');
  });
});
