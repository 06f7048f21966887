// The render's task queue with stand-in ranges that "render" a page per turn of the event loop:
// every page of every rendition is rendered exactly once, an idle lane takes the end of a busy
// range, and the first failure is the one reported once everything has stopped.
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/pdf/pageRanges.ts';
import { type Running, runTasks } from '../../src/pdf/renderQueue.ts';
import type { RangeRun } from '../../src/pdf/renderRange.ts';

const turn = () => new Promise((r) => setImmediate(r));

/** A range that renders a page every `turns` turns of the event loop, honouring cuts. */
const fakeRange = (
  task: Extract<Task, { kind: 'pages' }>,
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

describe('runTasks', () => {
  it('renders every page of every rendition once, the idle lane taking the end of the busy range', async () => {
    const rendered: string[] = [];
    const started: string[] = [];
    await runTasks(plan(60), 2, (task, signal) => {
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
    const failure = await runTasks(plan(40), 2, (task, signal) => {
      running++;
      const done =
        task.kind === 'text'
          ? turn().then(() => {
              throw new Error('the text failed first');
            })
          : fakeRange(task, signal, rendered, 2).done;
      return { done: done.finally(() => running--) };
    }).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toBe('the text failed first');
    expect(running).toBe(0);
  });
});
