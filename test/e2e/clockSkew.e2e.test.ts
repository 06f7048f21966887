// One clock for the decisions daemons share (issue 40, item 7): two daemons on one database and
// one bucket, the second on a machine whose clock runs 25 hours ahead. That clock is real to the
// process: libfaketime (Debian's faketime, LD_PRELOAD) moves what the system tells it, so
// Date.now() itself is off, as on a machine with a wrong clock. Before, the skewed daemon found
// a link made an hour ago expired, refused the other daemon's reading grants and made a second
// flipbook from an Idempotency-Key retry; now both follow the database's time.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  client,
  createFlipbook,
  expectJson,
  form,
  pdf,
  SMALL_PDF,
  send,
  waitActive,
} from '../support/apiHelpers.ts';
import { type Daemon, startDaemon } from '../support/cli.ts';
import { freshDatabase } from '../support/databases.ts';

const FAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
].find((path) => existsSync(path));

describe('a daemon whose machine clock is a day off', () => {
  let a: ApiFixture;
  let ahead: Daemon;
  let book: { flipbookId: string; versionId: string };

  beforeAll(async () => {
    if (!FAKETIME) throw new Error('libfaketime is missing: run scripts/setup.sh --test');
    const databaseUrl = await freshDatabase();
    a = await startApi({ databaseUrl }, ['--workers', '1', '--rate-limit', '0']);
    ahead = await startDaemon(
      ['--database-url', databaseUrl, ...a.blobArgs, '--workers', '0', '--rate-limit', '0'],
      // The monotonic clock stays true: only the wall clock is wrong, as on a real machine.
      { LD_PRELOAD: FAKETIME, FAKETIME: '+25h', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
    );
    const c = client(a.api, a.key);
    book = await createFlipbook(c, { visibility: 'links', title: 'Price list' });
    await waitActive(c, book.flipbookId, book.versionId);
  });
  afterAll(async () => {
    await ahead?.stop();
    await a?.stop();
  });

  it('is told so in its log and by /readyz, and follows the database', async () => {
    expect(ahead.logs()).toMatch(/this machine's clock is 9\d{4}(\.\d)? s ahead of the database's/);
    const ready = await send(`${ahead.url}/readyz`);
    expectJson(ready, 200);
    expect(ready.body.clock_offset_ms).toBeLessThan(-24 * 3600_000);
    const here = await send(`${a.daemon.url}/readyz`);
    expect(Math.abs(here.body.clock_offset_ms)).toBeLessThan(2000);
  });

  it("opens a link made an hour before its expiry, and honours the other daemon's grants", async () => {
    const c = client(a.api, a.key);
    const made = await c.post(`/flipbooks/${book.flipbookId}/links`, {
      body: JSON.stringify({
        label: 'Auditor',
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
      }),
      headers: { 'content-type': 'application/json' },
    });
    expectJson(made, 201);
    const onA = await fetch(made.body.url);
    expect(onA.status).toBe(200);
    const grant = /\/a\/([A-Za-z0-9._-]+)\/pages\//.exec(await onA.text())?.[1];
    expect(grant).toBeTruthy();
    const onAhead = await fetch(made.body.url.replace(a.daemon.url, ahead.url));
    expect(onAhead.status).toBe(200);
    await onAhead.arrayBuffer();
    const image = await fetch(`${ahead.url}/a/${grant}/pages/${book.versionId}/1/mid.jpg`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    await image.arrayBuffer();
  });

  it('answers an Idempotency-Key retry with the first answer, not a second flipbook', async () => {
    const upload = (base: string) =>
      send(`${base}/api/v1/flipbooks/by-slug/retried/versions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.key}`, 'idempotency-key': 'ci-run-4711' },
        body: form({ title: 'Retried' }, pdf(SMALL_PDF)),
      });
    const first = await upload(a.daemon.url);
    expectJson(first, 201);
    const retried = await upload(ahead.url);
    expect(retried.status).toBe(201);
    expect(retried.body.flipbook_id).toBe(first.body.flipbook_id);
    expect(retried.body.version_id).toBe(first.body.version_id);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
  });
});
