// bench/activation: what a command costs on a long-lived flipbook. Every command reads its
// flipbook's stream to decide (event sourcing), so a stream that piles up page lists makes every
// activation, upload and deletion slower as the flipbook ages.
//
//   npm run bench:activation [-- versions pages]     (default: 50 versions of 500 pages)
//
// Builds one flipbook with N processed versions of P pages each (progress batches of 100 pages
// and the final event, as the worker records them) on a fresh embedded store, then times 20
// activations, switching between two versions. Prints the median and p95 wall time, the CPU time
// of this process per activation, and the stream's stored size.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFlipbookCommand } from '../src/app/commands.ts';
import type { EventMetadata } from '../src/app/eventContext.ts';
import { openStore } from '../src/store/store.ts';
import { cpuMs } from './cpuTime.ts';

const [versions = 50, pagesEach = 500] = process.argv.slice(2).map(Number);
const BENCH: EventMetadata = { actor: { type: 'admin', id: 'bench' } };
const ROUNDS = 20;

const dataDir = await mkdtemp(join(tmpdir(), 'bench-activation-'));
const store = await openStore({ dataDir });
try {
  const flipbookId = randomUUID();
  const workspaceId = randomUUID();
  const file = (n: number) => ({
    name: `v${n}.pdf`,
    type: 'pdf',
    mimeType: 'application/pdf',
    size: 1000,
    checksum: randomUUID().replaceAll('-', '').padEnd(64, '0'),
  });
  const command = (c: Parameters<typeof runFlipbookCommand>[2]) =>
    runFlipbookCommand(store, flipbookId, c, BENCH);
  const ids: string[] = [];
  const buildStarted = performance.now();
  for (let n = 1; n <= versions; n++) {
    const versionId = randomUUID();
    ids.push(versionId);
    const now = new Date();
    if (n === 1) {
      await command({
        type: 'CreateFlipbook',
        data: {
          flipbookId,
          workspaceId,
          title: 'Bench',
          slug: 'bench',
          description: '',
          versionId,
          file: file(n),
          now,
        },
      });
    } else {
      await command({
        type: 'UploadVersion',
        data: { versionId, file: file(n), activateOnDone: false, now },
      });
    }
    await command({
      type: 'StartProcessing',
      data: { versionId, attempt: 1, pageCount: pagesEach, now },
    });
    const pages = Array.from({ length: pagesEach }, (_, i) => ({
      pageId: randomUUID(),
      position: i + 1,
      width: 612,
      height: 792,
    }));
    for (let first = 0; first < pagesEach; first += 100) {
      await command({
        type: 'RecordRenderedPages',
        data: { versionId, pages: pages.slice(first, first + 100), now },
      });
    }
    await command({
      type: 'CompleteProcessing',
      data: { versionId, width: 612, height: 792, pages, now },
    });
  }
  const built = performance.now() - buildStarted;
  const { rows } = await store.pool.query<{ events: string; bytes: string }>(
    `SELECT count(*)::text AS events, sum(pg_column_size(message_data))::text AS bytes
     FROM emt_messages WHERE stream_id = $1`,
    [`flipbook-${flipbookId}`],
  );

  const times: number[] = [];
  const cpuBefore = await cpuMs('self');
  for (let i = 0; i < ROUNDS; i++) {
    const versionId = ids[i % 2 === 0 ? ids.length - 1 : ids.length - 2] as string;
    const started = performance.now();
    await command({ type: 'ActivateVersion', data: { versionId, now: new Date() } });
    times.push(performance.now() - started);
  }
  const cpu = ((await cpuMs('self')) - cpuBefore) / ROUNDS;
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1);
  console.log(
    `${versions} versions x ${pagesEach} pages: stream of ${rows[0]?.events} events, ` +
      `${(Number(rows[0]?.bytes ?? 0) / 1024 / 1024).toFixed(1)} MB of event data (built in ${(built / 1000).toFixed(1)} s)`,
  );
  console.log(
    `activation: median ${at(0.5)} ms, p95 ${at(0.95)} ms wall; ${cpu.toFixed(1)} ms CPU in this process`,
  );
} finally {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
}
