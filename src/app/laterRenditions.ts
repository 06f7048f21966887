// Page images rendered after a version is done: the largest rendition (max.jpg, 2000 px) costs as
// much as the other two, the text and the structure together, and most readers never need it. So
// processing leaves it out; it is rendered for a page the first time someone asks for it (at a
// priority above other documents' pages), and for the rest of the document in the background
// afterwards (at the lowest). Both go through the process's render slots (src/pdf/renderSlots.ts),
// so neither can take the cores from another upload's first page.
//
// What a flood of requests for one book can cost is bounded: one render at a time per version,
// each taking the waiting pages within a span of SPAN pages in one pdftoppm process, so even a
// request for every page costs about what rendering the book once would.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../projections/readTable.ts';
import { renditionSource } from '../../projections/renditionFills.ts';
import { versionStatusById } from '../../projections/versions.ts';
import type { BlobStore, PageFile } from '../blobs/blobStore.ts';
import { AppError, NotFound } from '../domain/errors.ts';
import type { PagesTask } from '../pdf/pageRanges.ts';
import { RenderFailure } from '../pdf/renderFailure.ts';
import type { RenderOptions } from '../pdf/renderPdf.ts';
import { runTasks } from '../pdf/renderQueue.ts';
import { startRange } from '../pdf/renderRange.ts';
import type { Priority } from '../pdf/renderSlots.ts';
import { blankPage, placeRendition, QUALITY, type RenditionName } from '../pdf/renditions.ts';

export type LaterDeps = { db: Db; blobs: BlobStore; render: RenderOptions };

/** Pages a demand render may take in one process (the first one asked, and those after it). */
const SPAN = 16;
/** How long a request waits for its page before it is told to come back. */
const WAIT_MS = 20_000;

/** Contiguous runs of positions (sorted, distinct). */
export const runsOf = (positions: number[]) => {
  const runs: { first: number; last: number }[] = [];
  for (const p of [...new Set(positions)].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && last.last === p - 1) last.last = p;
    else runs.push({ first: p, last: p });
  }
  return runs;
};

/**
 * Renders `positions` of a version at `rendition` from its original and stores each page's file
 * as it is done (`onStored`). Runs cut short by the slots come back later in the same call. A
 * page without a size (pdftoppm cannot scale it) gets a blank page, as in processing.
 */
export const renderStoredPages = async (
  deps: LaterDeps,
  source: { versionId: string; checksum: string },
  positions: number[],
  rendition: RenditionName,
  priority: Priority,
  signal: AbortSignal,
  onStored: (position: number) => void = () => {},
) => {
  if (positions.length === 0) return;
  // Known to this process until it ends, so a deletion here can stop it and wait (below).
  const stop = new AbortController();
  const running = renderStored(deps, source, {
    positions,
    rendition,
    priority,
    signal: AbortSignal.any([signal, stop.signal]),
    onStored,
  });
  const entry = { stop, running };
  const mine = inFlight.get(source.versionId) ?? new Set();
  inFlight.set(source.versionId, mine.add(entry));
  try {
    return await running;
  } finally {
    mine.delete(entry);
    if (mine.size === 0 && inFlight.get(source.versionId) === mine) {
      inFlight.delete(source.versionId);
    }
  }
};

/** This process's later renders, by version. */
const inFlight = new Map<string, Set<{ stop: AbortController; running: Promise<void> }>>();

/**
 * Stops this process's later renders of a version being deleted and waits until they have
 * ended, so none writes a page after its files are removed. (One in another process notices the
 * deletion after its next page, and removes what it wrote: see `renderStored`.)
 */
export const stopLaterRenditions = async (versionId: string) => {
  const running = [...(inFlight.get(versionId) ?? [])];
  for (const r of running) r.stop.abort(new Error('the version was deleted'));
  await Promise.all(running.map((r) => r.running.catch(() => {})));
};

const renderStored = async (
  deps: LaterDeps,
  source: { versionId: string; checksum: string },
  work: {
    positions: number[];
    rendition: RenditionName;
    priority: Priority;
    signal: AbortSignal;
    onStored: (position: number) => void;
  },
) => {
  const { positions, rendition, priority, signal, onStored } = work;
  const original = await deps.blobs.localOriginal(source.checksum);
  const scratch = await mkdtemp(join(tmpdir(), 'flipbook-pages-')).catch(async (error) => {
    await original.release();
    throw error;
  });
  const longSide = deps.render.sizes[rendition];
  const file = `${rendition}.jpg` as PageFile;
  const store = async (position: number, made: string) => {
    signal.throwIfAborted();
    await deps.blobs.writePageFile(source.versionId, position, file, await readFile(made));
    await rm(made, { force: true });
    // Deleted meanwhile (by another process, which removed the files before this one was
    // written): what this wrote goes too, and the render stops.
    if ((await versionStatusById(deps.db, source.versionId)) === null) {
      await deps.blobs.removePages(source.versionId);
      throw new NotFound('Not found');
    }
    onStored(position);
  };
  let serial = 0;
  try {
    const tasks: PagesTask[] = runsOf(positions).map((run) => ({
      kind: 'pages',
      rendition,
      sized: true,
      ...run,
    }));
    await runTasks(
      tasks,
      deps.render.slots.job(),
      (task, stop) => {
        if (task.kind !== 'pages') throw new Error('only pages here');
        const range = startRange({
          limits: deps.render.limits,
          pdfPath: original.path,
          dir: join(scratch, `${task.first}-${serial++}`),
          first: task.first,
          last: task.last,
          longSide,
          quality: QUALITY[rendition],
          pageTimeoutMs: deps.render.pageTimeoutMs,
          signal: AbortSignal.any([signal, stop]),
          onFile: async (position, made) => {
            const placed = join(scratch, `${position}.jpg`);
            await placeRendition(made, placed, longSide, { position, sized: true, rendition });
            await store(position, placed);
          },
        });
        return {
          range,
          done: range.done.catch(async (error: unknown) => {
            // A page with no size (a 0x0 MediaBox): blank, as processing made its other images.
            if (task.first === task.last && /hDPI or vDPI values are invalid/.test(String(error))) {
              const placed = join(scratch, `${task.first}.jpg`);
              await blankPage(placed, longSide, rendition);
              await store(task.first, placed);
              return;
            }
            throw error;
          }),
        };
      },
      () => priority,
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await original.release();
  }
};

export class RenditionBusy extends AppError {
  override name = 'RenditionBusy';
  constructor() {
    super(503, 'Still rendering this page; try again shortly', { 'Retry-After': '2' });
  }
}

type Waiting = { resolve: () => void; reject: (error: unknown) => void };
type Queue = { pending: Map<number, Waiting[]>; running: boolean };

/** Per version: the pages asked for and not yet rendered, and whether a render is under way. */
const queues = new Map<string, Queue>();

/**
 * Makes sure page `position`'s `rendition` exists in the store, rendering it now if it does not.
 * Resolves once it is stored (the caller opens it then); NotFound for a version that has no such
 * page; RenditionBusy when the page takes too long (the reader asks again).
 */
export const demandRendition = async (
  deps: LaterDeps,
  versionId: string,
  position: number,
  rendition: RenditionName,
): Promise<void> => {
  const source = await renditionSource(deps.db, versionId);
  if (!source || position > source.page_count) throw new NotFound('Not found');
  if (source.status !== 'done') {
    // Still processing: only a page whose images are out has a folder to put this one in.
    const out = await deps.blobs.openPageFile(versionId, position, 'min.jpg');
    if (!out) throw new NotFound('Not found');
    await out.close();
  }
  const key = `${versionId}/${rendition}`;
  let queue = queues.get(key);
  if (!queue) {
    queue = { pending: new Map(), running: false };
    queues.set(key, queue);
  }
  const ready = new Promise<void>((resolve, reject) => {
    const waiting = queue.pending.get(position) ?? [];
    waiting.push({ resolve, reject });
    queue.pending.set(position, waiting);
  });
  if (!queue.running) void drain(deps, { versionId, checksum: source.checksum }, key, rendition);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RenditionBusy()), WAIT_MS);
  });
  try {
    await Promise.race([ready, late]);
  } finally {
    clearTimeout(timer);
  }
};

/** Renders what is asked for a version, SPAN pages at most per process, until nothing is. */
const drain = async (
  deps: LaterDeps,
  source: { versionId: string; checksum: string },
  key: string,
  rendition: RenditionName,
) => {
  const queue = queues.get(key);
  if (!queue || queue.running) return;
  queue.running = true;
  try {
    while (queue.pending.size > 0) {
      const first = Math.min(...queue.pending.keys());
      const batch = [...queue.pending.keys()].filter((p) => p < first + SPAN);
      const last = Math.max(...batch);
      const settle = (position: number, error?: unknown) => {
        const waiting = queue.pending.get(position);
        queue.pending.delete(position);
        for (const w of waiting ?? []) error === undefined ? w.resolve() : w.reject(error);
      };
      try {
        // The pages between those asked for come with them (the reader turns that way).
        const positions = Array.from({ length: last - first + 1 }, (_, i) => first + i);
        await renderStoredPages(
          deps,
          source,
          positions,
          rendition,
          'demand',
          AbortSignal.timeout(WAIT_MS * 3),
          (position) => settle(position),
        );
        for (const position of batch) settle(position, new RenditionBusy());
      } catch (error) {
        // Not kept: the next request tries again. A page poppler cannot render at this size
        // is the reader's to work around (it shows the smaller image it has).
        const told = error instanceof RenderFailure ? new RenditionBusy() : error;
        for (const position of batch) settle(position, told);
      }
    }
  } finally {
    queue.running = false;
    queues.delete(key);
  }
};
