// The render's task queue with stand-in ranges that "render" a page per turn of the event loop:
// every page of every rendition is rendered exactly once, an idle lane takes the end of a busy
// range, and the first failure is the one reported once everything has stopped.
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/pdf/pageRanges.ts';
import { type Running, runTasks } from '../../src/pdf/renderQueue.ts';
import type { RangeRun } from '../../src/pdf/renderRange.ts';
import { RenderSlots } from '../../src/pdf/renderSlots.ts';

const turn = () => new Promise((r) => setImmediate(r));

type PagesTask = Extract<Task, { kind: 'pages' }>;

/** A range that renders a page every `turns` turns of the event loop, honouring cuts. */
const fakeRange = (
  task: PagesTask,
  signal: AbortSignal,
  rendered: string[],
  turns: number,
): Running => {
  const state = { first: task.first, last: task.last, next: task.first };
  const range: RangeRun = {
    get first() {
      return state.first;
    },
    get last() {
      return state.last;
    },
    get next() {
      return state.next;
    },
    cut: (from) => {
      if (from > state.next && from <= state.last) state.last = from - 1;
    },
    done: (async () => {
      while (state.next <= state.last) {
        for (let i = 0; i < turns; i++) await turn();
        signal.throwIfAborted();
        rendered.push(`${task.rendition} ${state.next}`);
        state.next++;
      }
    })(),
  };
  return { range, done: range.done };
};

const plan = (pages: number): Task[] => [
  { kind: 'pages', rendition: 'min', first: 1, last: pages, sized: true },
  { kind: 'text' },
  { kind: 'pages', rendition: 'max', first: 1, last: pages, sized: true },
];

/** A plan of one rendition's pages `first` to `last`, and no text. */
const pagesOnly = (rendition: PagesTask['rendition'], first: number, last: number): Task[] => [
  { kind: 'pages', rendition, first, last, sized: true },
];

/** Starts stand-in ranges for a plan with no text task, telling `onStart` of each range. */
const rangesOnly =
  (rendered: string[], turns: number, onStart: (task: PagesTask) => void = () => {}) =>
  (task: Task, signal: AbortSignal) => {
    if (task.kind === 'text') throw new Error('no text here');
    onStart(task);
    return fakeRange(task, signal, rendered, turns);
  };

describe('runTasks', () => {
  it('renders every page of every rendition once, the idle lane taking the end of the busy range', async () => {
    const rendered: string[] = [];
    const started: string[] = [];
    await runTasks(plan(60), new RenderSlots({ capacity: 2, burst: 0 }).job(), (task, signal) => {
      if (task.kind === 'text') return { done: turn().then(() => undefined) };
      started.push(`${task.rendition} ${task.first}-${task.last}`);
      // max pages cost three times min's, as on a real text page (and more)
      return fakeRange(task, signal, rendered, task.rendition === 'max' ? 3 : 1);
    });
    for (const rendition of ['min', 'max']) {
      const pages = rendered
        .filter((r) => r.startsWith(rendition))
        .map((r) => Number(r.split(' ')[1]));
      expect(pages.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    }
    // max was split: the lane that finished min and the text took its later half
    expect(started.filter((s) => s.startsWith('max')).length).toBeGreaterThan(1);
  });

  it('reports the first failure, after every other task has stopped', async () => {
    const rendered: string[] = [];
    let running = 0;
    const failure = await runTasks(
      plan(40),
      new RenderSlots({ capacity: 2 }).job(),
      (task, signal) => {
        running++;
        const done =
          task.kind === 'text'
            ? turn().then(() => {
                throw new Error('the text failed first');
              })
            : fakeRange(task, signal, rendered, 2).done;
        return { done: done.finally(() => running--) };
      },
    ).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toBe('the text failed first');
    expect(running).toBe(0);
  });

  it('uses every slot for one document, and never more processes than the slots allow', async () => {
    const slots = new RenderSlots({ capacity: 4, burst: 0 });
    const rendered: string[] = [];
    let running = 0;
    let most = 0;
    await runTasks(plan(200), slots.job(), (task, signal) => {
      running++;
      most = Math.max(most, running);
      const run =
        task.kind === 'text'
          ? { done: turn().then(() => undefined) }
          : fakeRange(task, signal, rendered, 1);
      return { ...run, done: run.done.finally(() => running--) };
    });
    expect(most).toBe(4);
    expect(rendered).toHaveLength(400);
    expect(new Set(rendered).size).toBe(400);
  });

  it('gives a slot back to a document with none, and renders the rest of the cut range later', async () => {
    const slots = new RenderSlots({ capacity: 1, burst: 0 });
    const rendered: string[] = [];
    const long = runTasks(pagesOnly('min', 1, 100), slots.job(), rangesOnly(rendered, 1));
    while (rendered.length < 10) await turn();
    // A second document's page 1 asks for the only slot: the range stops after its page.
    const first: string[] = [];
    const short = runTasks(
      pagesOnly('mid', 1, 1),
      slots.job(),
      rangesOnly(rendered, 1, () => first.push(`while ${rendered.length} pages were done`)),
      () => 'first',
    );
    await Promise.all([long, short]);
    const before = Number(/while (\d+)/.exec(first[0] ?? '')?.[1]);
    expect(before).toBeLessThan(15);
    const min = rendered.filter((r) => r.startsWith('min')).map((r) => Number(r.split(' ')[1]));
    expect(min).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('lets a range on its last page end by itself when its slot is wanted', async () => {
    const slots = new RenderSlots({ capacity: 1, burst: 0 });
    const rendered: string[] = [];
    const started: string[] = [];
    const start = rangesOnly(rendered, 3, (task) => started.push(`${task.first}-${task.last}`));
    const one = runTasks(pagesOnly('min', 1, 1), slots.job(), start);
    await turn();
    const other = runTasks(pagesOnly('mid', 1, 1), slots.job(), start, () => 'first');
    await Promise.all([one, other]);
    expect(started).toEqual(['1-1', '1-1']); // no empty range was queued for the rest
    expect(rendered.sort()).toEqual(['mid 1', 'min 1']);
  });
});
