// Runs the render's tasks on a fixed number of lanes (one process each), in order. A lane with
// nothing left to start takes the second half of what the busiest range still has to render,
// so both cores stay busy to the end without cutting the document into many small ranges (each
// process pays for loading the document again).
import type { PagesTask, Task } from './pageRanges.ts';
import type { RangeRun } from './renderRange.ts';
import type { RenditionName } from './renditions.ts';

/** A page's cost at each size, relative to max (CPU, measured on the corpus's manuals). */
const WEIGHT: Record<RenditionName, number> = { max: 1, mid: 0.45, min: 0.15 };
/** Splitting costs a process start and a page rendered twice: worth it above this much work. */
const MIN_STOLEN_WORK = 3;

export type Running = { done: Promise<void>; range?: RangeRun };

/**
 * Runs every task, at most `lanes` at once. The first failure stops the others (through the
 * signal `start` gets) and is thrown once every task has ended, so no renderer is left writing
 * into a folder the caller is about to remove.
 */
export const runTasks = async (
  tasks: Task[],
  lanes: number,
  start: (task: Task, signal: AbortSignal) => Running,
) => {
  const stop = new AbortController();
  // The first failure in time is the cause; the others are the aborts it set off.
  let failure: { error: unknown } | null = null;
  const busy = new Map<Running, PagesTask>();
  let next = 0;

  const steal = (): Task | undefined => {
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
    if (!best?.running.range) return undefined;
    const last = best.running.range.last;
    best.running.range.cut(best.from);
    if (best.running.range.last !== best.from - 1) return undefined; // it got there first
    return { ...best.task, first: best.from, last };
  };

  const lane = async () => {
    while (!stop.signal.aborted) {
      const task = next < tasks.length ? tasks[next++] : steal();
      if (!task) return;
      let running: Running | undefined;
      try {
        running = start(task, stop.signal);
        if (task.kind === 'pages') busy.set(running, task);
        await running.done;
      } catch (error) {
        failure ??= { error };
        stop.abort();
        return;
      } finally {
        if (running) busy.delete(running);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, tasks.length)) }, lane));
  if (failure) throw (failure as { error: unknown }).error;
};
