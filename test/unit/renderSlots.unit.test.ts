// The machine-wide render slots, with an injected clock and timers: who gets a slot, in what
// order, and when a holder is asked to give one back.
import { describe, expect, it } from 'vitest';
import { type Priority, RenderSlots, type Slot } from '../../src/pdf/renderSlots.ts';

const flush = () => new Promise((r) => setImmediate(r));

const clock = () => {
  let now = 0;
  const timers: { at: number; run: () => void }[] = [];
  return {
    now: () => now,
    setTimer: (run: () => void, ms: number) => {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return () => {
        timers.splice(timers.indexOf(timer), 1);
      };
    },
    advance: (ms: number) => {
      now += ms;
      for (const timer of timers.filter((t) => t.at <= now)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.run();
      }
    },
  };
};

/** Asks for a slot and records when it comes and whether it was asked back. */
const ask = (job: ReturnType<RenderSlots['job']>, priority: Priority = 'normal') => {
  const state: { slot: Slot | null; stopped: boolean } = { slot: null, stopped: false };
  const granted = job.acquire(priority).then((slot) => {
    state.slot = slot;
    slot.yieldWith(() => {
      state.stopped = true;
    });
    return slot;
  });
  return Object.assign(state, { granted });
};

/** A holder asked to stop gives its slot back, and the one waiting then gets a slot. */
const handsOver = async (holder: ReturnType<typeof ask>, waiter: ReturnType<typeof ask>) => {
  expect(holder.stopped).toBe(true);
  holder.slot?.release();
  await flush();
  expect(waiter.slot).not.toBeNull();
};

describe('RenderSlots', () => {
  it('gives one document every slot, and no more', async () => {
    const slots = new RenderSlots({ capacity: 2, burst: 0 });
    const job = slots.job();
    const a = ask(job);
    const b = ask(job);
    const c = ask(job);
    await flush();
    expect([a.slot, b.slot, c.slot].map(Boolean)).toEqual([true, true, false]);
    expect(slots.running).toBe(2);
    a.slot?.release();
    a.slot?.release(); // twice changes nothing
    await flush();
    expect(c.slot).not.toBeNull();
    expect(slots.running).toBe(2);
  });

  it('lets a first page start beyond the slots (burst) and ask a range to stop', async () => {
    const slots = new RenderSlots({ capacity: 1, burst: 1 });
    const long = ask(slots.job());
    await flush();
    const first = ask(slots.job(), 'first');
    await flush();
    expect(first.slot).not.toBeNull();
    expect(slots.running).toBe(2);
    // a second page-1 rendition finds the burst taken: the range is asked to stop at once
    const second = ask(slots.job(), 'first');
    await flush();
    expect(second.slot).toBeNull();
    await handsOver(long, second);
  });

  it('asks a document holding two more slots than a waiter to give one back at once', async () => {
    const slots = new RenderSlots({ capacity: 2, burst: 0 });
    const big = slots.job();
    const a = ask(big);
    const b = ask(big);
    await flush();
    const small = ask(slots.job());
    await flush();
    expect(a.stopped || b.stopped).toBe(true);
    expect(a.stopped && b.stopped).toBe(false); // one is enough
    await handsOver(a.stopped ? a : b, small);
  });

  it('takes turns after a slice when documents outnumber the slots', async () => {
    const time = clock();
    const slots = new RenderSlots({ capacity: 1, burst: 0, sliceMs: 3000, ...time });
    const a = ask(slots.job());
    await flush();
    time.advance(1000);
    const b = ask(slots.job());
    await flush();
    expect(a.stopped).toBe(false); // a has had its slot for 1 s of its 3
    time.advance(1999);
    expect(a.stopped).toBe(false);
    time.advance(1);
    await handsOver(a, b);
  });

  it('serves higher priorities first, then the document holding least', async () => {
    const slots = new RenderSlots({ capacity: 2, burst: 0 });
    const busy = slots.job();
    await busy.acquire('normal'); // kept to the end
    const running = ask(slots.job());
    await flush();
    const order: string[] = [];
    const jobs = { busy, idle: slots.job(), fill: slots.job(), demand: slots.job() };
    const wait = (name: string, job: ReturnType<RenderSlots['job']>, priority: Priority) =>
      job.acquire(priority).then((slot) => {
        order.push(name);
        slot.release();
      });
    const all = Promise.all([
      wait('fill', jobs.fill, 'fill'),
      wait('busy document', jobs.busy, 'normal'),
      wait('idle document', jobs.idle, 'normal'),
      wait('demand', jobs.demand, 'demand'),
    ]);
    running.slot?.release();
    await all;
    expect(order).toEqual(['demand', 'idle document', 'busy document', 'fill']);
  });

  it('never asks a holder of a higher priority, nor one that cannot stop', async () => {
    const time = clock();
    const slots = new RenderSlots({ capacity: 1, burst: 0, ...time });
    const first = ask(slots.job(), 'first');
    await flush();
    const normal = ask(slots.job(), 'normal');
    await flush();
    time.advance(60_000);
    expect(first.stopped).toBe(false);
    expect(normal.slot).toBeNull();
    first.slot?.release();
    await flush();
    expect(normal.slot).not.toBeNull();
    normal.slot?.release();
    // a holder that never said how to stop (the text) is waited for, however long it takes
    const text = await slots.job().acquire('normal');
    const after = ask(slots.job(), 'normal');
    time.advance(60_000);
    await flush();
    expect(after.slot).toBeNull();
    text.release();
    await flush();
    expect(after.slot).not.toBeNull();
  });

  it('forgets a waiter whose signal aborts', async () => {
    const slots = new RenderSlots({ capacity: 1, burst: 0 });
    const holder = ask(slots.job());
    await flush();
    const stop = new AbortController();
    const waiting = slots.job().acquire('normal', stop.signal);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(slots.waiting).toBe(0);
    holder.slot?.release();
    expect(slots.running).toBe(0);
  });

  it('serves the document that has had the slots for less time first (a new short one before a long one)', async () => {
    const time = clock();
    const slots = new RenderSlots({ capacity: 1, burst: 0, ...time });
    const long = slots.job();
    const held = await long.acquire('normal');
    time.advance(10_000);
    const order: string[] = [];
    const longAgain = long.acquire('normal').then((slot) => {
      order.push('long');
      slot.release();
    });
    const short = slots
      .job()
      .acquire('normal')
      .then((slot) => {
        order.push('short');
        slot.release();
      });
    held.release();
    await Promise.all([longAgain, short]);
    expect(order).toEqual(['short', 'long']);
  });
});
