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
//
// A reader never waits more than ANSWER_MS for it: a page still rendering then (a heavy page
// takes many seconds) is answered with its next smaller image, marked as standing in and never
// cached (src/http/files.ts), while the render goes on for WAIT_MS more for the next request.
// One file (over 300 lines): the queue of pages waiting, its spans and the deadline a reader waits
// are one state; apart, each would reach into the others'.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore, PageFile } from '../blobs/blobStore.ts';
import { AppError, NotFound, refusal } from '../domain/errors.ts';
import type { PagesTask } from '../pdf/pageRanges.ts';
import { machineProblem, RenderFailure } from '../pdf/renderFailure.ts';
import type { RenderOptions } from '../pdf/renderPdf.ts';
import { runTasks } from '../pdf/renderQueue.ts';
import { startRange } from '../pdf/renderRange.ts';
import type { Priority } from '../pdf/renderSlots.ts';
import { blankPage, placeRendition, QUALITY, type RenditionName } from '../pdf/renditions.ts';
import type { Db } from '../readTables/readTable.ts';
import { versionStatusById } from '../readTables/versions.ts';
import { renditionSource } from '../state/renditionFills.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';

export type LaterDeps = { db: Db; blobs: BlobStore; render: RenderOptions };

/** Pages to render at a size, at a priority, and what to tell as each is stored. */
type LaterWork = {
  positions: number[];
  rendition: RenditionName;
  priority: Priority;
  signal: AbortSignal;
  onStored: (position: number) => void;
};

/** Pages a demand render may take in one process (the first one asked, and those after it). */
const SPAN = 16;
/** How long a page asked for stays asked for (its render goes on) once its request is answered. */
const WAIT_MS = 20_000;
/** How long a request waits for its page before it is answered with a smaller image. */
export const ANSWER_MS = 800;

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
const renderStoredPages = async (
  deps: LaterDeps,
  source: { versionId: string; checksum: string },
  work: LaterWork,
) => {
  const { positions, signal } = work;
  if (positions.length === 0) return;
  // Known to this process until it ends, so a deletion here can stop it and wait (below).
  const stop = new AbortController();
  const running = renderStored(deps, source, {
    ...work,
    signal: AbortSignal.any([signal, stop.signal]),
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
  work: LaterWork,
) => {
  const { positions, rendition, priority, signal, onStored } = work;
  const original = await deps.blobs.localOriginal(source.checksum);
  // Named after this process: a start after a kill removes it (sweepWrapperDirs).
  const scratch = await mkdtemp(join(tmpdir(), `flipbook-pages-${process.pid}-`)).catch(
    async (error) => {
      await original.release();
      throw error;
    },
  );
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
  const startPages = (first: number, last: number, stop: AbortSignal) =>
    startRange({
      limits: deps.render.limits,
      pdfPath: original.path,
      dir: join(scratch, `${first}-${serial++}`),
      first,
      last,
      longSide,
      quality: QUALITY[rendition],
      pageTimeoutMs: deps.render.pageTimeoutMs,
      signal: stop,
      onFile: async (position, made) => {
        const placed = join(scratch, `${position}.jpg`);
        await placeRendition(made, placed, longSide, { position, sized: true, rendition });
        await store(position, placed);
      },
    });
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
        const cancelled = AbortSignal.any([signal, stop]);
        const range = startPages(task.first, task.last, cancelled);
        return {
          range,
          done: range.done.catch(async (error: unknown) => {
            if (!unsized(error)) throw error;
            // A page with no size (a 0x0 MediaBox) ends the whole range: its pages from the one
            // under way are taken again one at a time, and each page without a size is blank, as
            // processing made its other images.
            for (let position = range.next; position <= range.last; position++) {
              await startPages(position, position, cancelled).done.catch(async (again: unknown) => {
                if (!unsized(again)) throw again;
                const placed = join(scratch, `${position}.jpg`);
                await blankPage(placed, longSide, rendition);
                await store(position, placed);
              });
            }
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

/** pdftoppm's refusal of a page it cannot scale: one without a size */
const unsized = (error: unknown) => /hDPI or vDPI values are invalid/.test(String(error));

export class RenditionBusy extends refusal(
  'RenditionBusy',
  503,
  'Still rendering this page; try again shortly',
  { 'Retry-After': '2' },
) {}

/**
 * What a request for a page image gets: the file is stored, the page cannot be rendered at this
 * size, or it is not rendered yet ('later': its render goes on).
 */
export type Demanded = 'stored' | 'unrenderable' | 'later';

type Waiting = { resolve: (outcome: Demanded) => void; reject: (error: unknown) => void };
type Queue = { pending: Map<number, Set<Waiting>>; running: boolean };

/** Per version and rendition: the pages asked for and not yet rendered, and whether a render runs. */
const queues = new Map<string, Queue>();

/**
 * Pages poppler could not render at a size (a page over the time or memory allowed), for an hour:
 * asked again, they get the smaller image at once instead of another render (which would hold a
 * slot for the page's whole time limit each time).
 */
const unrenderable = new Map<string, number>();
const UNRENDERABLE_FOR_MS = 60 * 60_000;
const unrenderableKey = (versionId: string, position: number, rendition: RenditionName) =>
  `${versionId}/${position}/${rendition}`;
const isUnrenderable = (versionId: string, position: number, rendition: RenditionName) => {
  const key = unrenderableKey(versionId, position, rendition);
  const until = unrenderable.get(key);
  if (until !== undefined && until < performance.now()) unrenderable.delete(key);
  return until !== undefined && until >= performance.now();
};

/**
 * Renders what it can of `positions`: a page poppler cannot render (named by the failure, or the
 * first one not stored) is set aside as unrenderable, and the rest go on. Returns the pages set
 * aside.
 */
export const renderWhatCan = async (
  deps: LaterDeps,
  source: { versionId: string; checksum: string },
  positions: number[],
  rendition: RenditionName,
  priority: Priority,
  signal: AbortSignal,
  onStored: (position: number) => void = () => {},
): Promise<number[]> => {
  const stored = new Set<number>();
  const failed = positions.filter((p) => isUnrenderable(source.versionId, p, rendition));
  let left = positions.filter((p) => !failed.includes(p));
  while (left.length > 0) {
    try {
      await renderStoredPages(deps, source, {
        positions: left,
        rendition,
        priority,
        signal,
        onStored: (position) => {
          stored.add(position);
          onStored(position);
        },
      });
      return failed;
    } catch (error) {
      if (!(error instanceof RenderFailure)) throw error;
      const named = Number(/\bpage (\d+)/i.exec(error.message)?.[1]);
      const bad =
        left.includes(named) && !stored.has(named) ? named : left.find((p) => !stored.has(p));
      if (bad === undefined) return failed;
      unrenderable.set(
        unrenderableKey(source.versionId, bad, rendition),
        performance.now() + UNRENDERABLE_FOR_MS,
      );
      failed.push(bad);
      left = left.filter((p) => p !== bad && !stored.has(p));
    }
  }
  return failed;
};

/**
 * Demand renders at once in this process, whatever the book: at most half the render slots, so
 * floods of requests (for several public books at once) leave the other half to uploads.
 */
let demandsRunning = 0;
const demandsWaiting: (() => void)[] = [];
const demandTurn = async (capacity: number) => {
  if (demandsRunning < Math.max(1, Math.floor(capacity / 2))) {
    demandsRunning++;
    return;
  }
  await new Promise<void>((resolve) => demandsWaiting.push(resolve));
};
const demandDone = () => {
  const next = demandsWaiting.shift();
  if (next) next();
  else demandsRunning--;
};

/**
 * Makes sure page `position`'s `rendition` exists in the store, rendering it now if it does not.
 * Within `answerMs`: 'stored' once it is (the caller opens it then), 'unrenderable' for a page
 * poppler cannot render at this size, 'later' while it is still rendering (for both, the caller
 * sends a smaller image); NotFound for a version that has no such page. A page nobody asked for
 * again within WAIT_MS is not rendered for nobody: RenditionBusy to anyone still waiting.
 */
export const demandRendition = async (
  deps: LaterDeps,
  versionId: string,
  position: number,
  rendition: RenditionName,
  answerMs = ANSWER_MS,
): Promise<Demanded> => {
  const source = await renditionSource(deps.db, versionId);
  if (!source || position > source.page_count) throw new NotFound('Not found');
  if (isUnrenderable(versionId, position, rendition)) return 'unrenderable';
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
  const mine = queue;
  let waiter: Waiting | undefined;
  const ready = new Promise<Demanded>((resolve, reject) => {
    waiter = { resolve, reject };
    const waiting = mine.pending.get(position) ?? new Set();
    mine.pending.set(position, waiting.add(waiter));
  });
  if (!queue.running) void drain(deps, { versionId, checksum: source.checksum }, key, rendition);
  // Given up on after WAIT_MS: nobody waits for the page any more, so it is not rendered for nobody.
  const forget = setTimeout(() => {
    const waiting = mine.pending.get(position);
    if (waiter) waiting?.delete(waiter);
    if (waiting?.size === 0) mine.pending.delete(position);
    waiter?.reject(new RenditionBusy());
  }, WAIT_MS);
  forget.unref();
  const settled = ready.finally(() => clearTimeout(forget));
  settled.catch(() => {}); // answered 'later' first: what comes after is nobody's to hear
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Demanded>((resolve) => {
    timer = setTimeout(() => resolve('later'), answerMs);
  });
  try {
    return await Promise.race([settled, late]);
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
  const settle = (position: number, outcome: Demanded | { error: unknown }) => {
    const waiting = queue.pending.get(position);
    queue.pending.delete(position);
    for (const w of waiting ?? []) {
      if (typeof outcome === 'string') w.resolve(outcome);
      else w.reject(outcome.error);
    }
  };
  try {
    while (queue.pending.size > 0) {
      await demandTurn(deps.render.slots.capacity);
      try {
        if (queue.pending.size === 0) break; // all given up on while waiting for a turn
        const first = Math.min(...queue.pending.keys());
        const last = Math.max(...[...queue.pending.keys()].filter((p) => p < first + SPAN));
        // The pages between those asked for come with them (the reader turns that way).
        const positions = Array.from({ length: last - first + 1 }, (_, i) => first + i);
        const stored = new Set<number>();
        try {
          const failed = await renderWhatCan(
            deps,
            source,
            positions,
            rendition,
            'demand',
            AbortSignal.timeout(WAIT_MS * 3),
            (position) => {
              stored.add(position);
              settle(position, 'stored');
            },
          );
          for (const position of failed) settle(position, 'unrenderable');
          // A request that came in while its page was being stored (it had not found the file)
          // finds it now; one for a page that came out neither way is told to come back.
          for (const position of positions) {
            if (stored.has(position)) settle(position, 'stored');
            else if (queue.pending.has(position)) settle(position, { error: new RenditionBusy() });
          }
        } catch (error) {
          // The version went (deleted meanwhile): its pages are not found. The database or the
          // store away, or the temporary disk the pages are made on: said as such. Anything else
          // (a render cut off): the next request tries again.
          const gone =
            (await versionStatusById(deps.db, source.versionId).catch(() => '')) === null;
          const told = gone
            ? new NotFound('Not found')
            : error instanceof AppError || isDatabaseUnavailable(error)
              ? error
              : (machineProblem(error) ?? new RenditionBusy());
          for (const position of positions) {
            if (!stored.has(position)) settle(position, { error: told });
          }
          // Every other page waiting for a deleted version is not found either: told at once,
          // not after a turn and a failed render each.
          if (gone)
            for (const position of [...queue.pending.keys()]) settle(position, { error: told });
        }
      } finally {
        demandDone();
      }
    }
  } finally {
    queue.running = false;
    queues.delete(key);
  }
};
