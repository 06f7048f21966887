// Runs the render's tasks in order, each process on a slot of the machine-wide render slots
// (renderSlots.ts): alone, a document uses every slot; beside others, its share. A lane with
// nothing left to start takes the second half of what the busiest range still has to render,
// so every core stays busy to the end without cutting the document into many small ranges (each
// process pays for loading the document again). A range asked to give its slot back stops after
// the page it is on, and the pages after it go back to the front of the queue.
import type { PagesTask, Task } from './pageRanges.ts';
import type { RangeRun } from './renderRange.ts';
import type { JobSlots, Priority } from './renderSlots.ts';
import type { RenditionName } from './renditions.ts';

/** A page's cost at each size, relative to max (CPU, measured on the corpus's manuals). */
const WEIGHT: Record<RenditionName, number> = { max: 1, mid: 0.45, min: 0.15 };
/** Splitting costs a process start and a page rendered twice: worth it above this much work. */
const MIN_STOLEN_WORK = 3;

export type Running = { done: Promise<void>; range?: RangeRun };

/**
 * Runs every task, each on a slot from `slots`. The first failure stops the others (through the
 * signal `start` gets) and is thrown once every task has ended, so no renderer is left writing
 * into a folder the caller is about to remove.
 */
export const runTasks = async (
  tasks: Task[],
  slots: JobSlots,
  start: (task: Task, signal: AbortSignal) => Running,
  priorityOf: (task: Task) => Priority = () => 'normal',
) => {
  const stop = new AbortController();
  // The first failure in time is the cause; the others are the aborts it set off.
  let failure: { error: unknown } | null = null;
  const busy = new Map<Running, PagesTask>();
  const queue = [...tasks];

  /** the range whose later half is most worth taking, if any */
  const worthStealing = () => {
    let best: { running: Running; task: PagesTask; from: number; work: number } | undefined;
    for (const [running, task] of busy) {
      const range = running.range;
      if (!range) continue;
      // It is working on `next`; the other lane takes the later half of the pages after it.
      const left = range.last - range.next;
      const taken = Math.ceil(left / 2);
      const work = taken * WEIGHT[task.rendition];
      if (taken >= 1 && work >= MIN_STOLEN_WORK && work > (best?.work ?? 0)) {
        best = { running, task, from: range.last - taken + 1, work };
      }
    }
    return best;
  };

  const steal = (): Task | undefined => {
    const best = worthStealing();
    if (!best?.running.range) return undefined;
    const last = best.running.range.last;
    best.running.range.cut(best.from);
    if (best.running.range.last !== best.from - 1) return undefined; // it got there first
    return { ...best.task, first: best.from, last };
  };

  /** Gives the rest of a running range back to the queue's front: its slot is wanted elsewhere. */
  const giveBack = (running: Running, task: PagesTask) => {
    const range = running.range;
    if (!range) return;
    const from = range.next + 1;
    const last = range.last;
    if (from > last) return; // on its last page: it ends by itself
    range.cut(from);
    if (range.last === from - 1) queue.unshift({ ...task, first: from, last });
  };

  // Lanes come and go: one per task waiting for a slot, more while a range is worth splitting,
  // never more than the slots could run at once.
  const lanes = new Set<Promise<void>>();
  const maxLanes = Math.max(1, slots.slots.capacity + slots.slots.burst);
  const more = () => {
    while (lanes.size < maxLanes && !stop.signal.aborted && (queue.length > 0 || worthStealing())) {
      const running = lane();
      lanes.add(running);
      void running.finally(() => lanes.delete(running));
    }
  };

  const lane = async () => {
    while (!stop.signal.aborted) {
      // A queued task is this lane's while it waits for a slot; with none, it will steal.
      let task = queue.shift();
      if (!task && !worthStealing()) return;
      // A slot per task: between two tasks, whoever has had least (another document, or this
      // one's lane that waited longer) goes first.
      const slot = await slots
        .acquire(task ? priorityOf(task) : 'normal', stop.signal)
        .catch(() => null);
      if (!slot) return; // stopped while waiting
      let running: Running | undefined;
      try {
        task ??= queue.shift() ?? steal();
        if (!task) return;
        running = start(task, stop.signal);
        if (task.kind === 'pages') {
          const started = { running, task };
          busy.set(running, task);
          slot.yieldWith(() => {
            giveBack(started.running, started.task);
            more();
          });
          more();
        }
        await running.done;
      } catch (error) {
        failure ??= { error };
        stop.abort();
        return;
      } finally {
        if (running) busy.delete(running);
        slot.release();
      }
    }
  };
  more();
  while (lanes.size > 0) await Promise.all(lanes);
  if (failure) throw (failure as { error: unknown }).error;
};
