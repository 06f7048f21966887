// The render schedule, seen from outside: the daemon's renderer processes (counted in /proc) and
// the order in which documents get their pages. One document alone runs as many renderers as the
// daemon has render slots; beside long documents, a new upload's page 1 comes at once and a short
// document is done long before them. Times are printed, not asserted (bench:render measures them).
import { describe, expect, it } from 'vitest';
import {
  addVersion,
  type Client,
  createFlipbook,
  expectJson,
  pdf,
  sleep,
} from '../support/apiHelpers.ts';
import { toolProcesses } from '../support/processTree.ts';
import { useApi } from '../support/useApi.ts';

const LONG = 'text_why3-manual.pdf'; // 184 pages
const LONGER = 'text_freeculture.pdf'; // 352 pages
const SHORT = 'vec_tracemonkey.pdf'; // 14 pages
const LONGER_THAN_SHORT = 'img_GS9_Color_Management.pdf'; // 42 pages

const statusOf = async (c: Client, ids: { flipbookId: string; versionId: string }) => {
  const reply = await c.status(ids.flipbookId, ids.versionId);
  expectJson(reply, 200);
  return reply.body as { status: string; pages_done?: number };
};

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
};

describe('the render schedule (--render-processes 2, the default --workers)', () => {
  const fx = useApi('embedded', ['--rate-limit', '0', '--render-processes', '2', '--workers', '4']);

  it('runs one document alone on every render slot, never on more than slots + the one burst', async () => {
    const pid = fx.daemon.process.pid ?? 0;
    const ids = await createFlipbook(fx.c, {}, pdf(LONG));
    const samples: number[] = [];
    let done = false;
    while (!done) {
      const running = toolProcesses(pid).length;
      const { status } = await statusOf(fx.c, ids);
      done = status === 'done' || status === 'error';
      if (status === 'processing') samples.push(running);
      await sleep(20);
    }
    expect((await statusOf(fx.c, ids)).status).toBe('done');
    const two = samples.filter((n) => n >= 2).length / samples.length;
    console.log(
      `${LONG}: ${samples.length} samples while processing; max ${Math.max(...samples)} tools at once; ${Math.round(two * 100)} % of samples with 2 or more`,
    );
    expect(Math.max(...samples)).toBeLessThanOrEqual(3);
    // One process per document would give no sample with two.
    expect(two).toBeGreaterThan(0.5);
  });

  it("renders a new upload's page 1 while two long documents render, and finishes a short one before them", async () => {
    const long = await createFlipbook(fx.c, {}, pdf(LONG));
    const longer = await createFlipbook(fx.c, {}, pdf(LONGER));
    await until('both long documents rendering', async () => {
      const [a, b] = await Promise.all([statusOf(fx.c, long), statusOf(fx.c, longer)]);
      return (a.pages_done ?? 0) > 0 && (b.pages_done ?? 0) > 0;
    });
    const uploaded = performance.now();
    const short = await createFlipbook(fx.c, {}, pdf(SHORT));
    const created = performance.now();
    const page1 = `${fx.daemon.url}/files/pages/${short.versionId}/1/mid.jpg`;
    await until('page 1 of the new upload', async () => {
      const res = await fetch(page1);
      await res.arrayBuffer();
      return res.status === 200;
    });
    const firstPageMs = performance.now() - created;
    await until(
      'the short document done',
      async () => (await statusOf(fx.c, short)).status === 'done',
    );
    const shortMs = performance.now() - uploaded;
    const [a, b] = await Promise.all([statusOf(fx.c, long), statusOf(fx.c, longer)]);
    console.log(
      `page 1 ${Math.round(firstPageMs)} ms after the 201; ${SHORT} done in ${Math.round(shortMs)} ms; the long ones then at ${a.pages_done} and ${b.pages_done} pages`,
    );
    // Neither long document is done: the short one did not wait for either.
    expect(a.status).toBe('processing');
    expect(b.status).toBe('processing');
    // Their remaining 400-odd pages prove nothing more: deleting them ends their renders.
    for (const ids of [long, longer])
      expectJson(await fx.c.del(`/flipbooks/${ids.flipbookId}`), 200);
  });

  it("processes a flipbook's versions in upload order, so the newest is the one left active", async () => {
    const first = await createFlipbook(fx.c, {}, pdf(LONGER_THAN_SHORT));
    const newer = await addVersion(fx.c, first.flipbookId, {}, pdf(SHORT));
    await until('both versions done', async () => {
      const [a, b] = await Promise.all([
        statusOf(fx.c, first),
        statusOf(fx.c, { flipbookId: first.flipbookId, versionId: newer }),
      ]);
      return a.status === 'done' && b.status === 'done';
    });
    const book = await fx.c.flipbook(first.flipbookId);
    expectJson(book, 200);
    const versions = book.body.versions as { id: string; is_active: boolean }[];
    expect(versions.find((v) => v.is_active)?.id).toBe(newer);
  });
});
