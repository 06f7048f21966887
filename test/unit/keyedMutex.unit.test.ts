import { describe, expect, it } from 'vitest';
import { createKeyedMutex } from '../../src/store/keyedMutex.ts';

/** A promise and the function that resolves it, to hold a critical section open. */
const gate = () => {
  let open = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
};

const tick = () => new Promise((r) => setImmediate(r));

describe('keyed mutex', () => {
  it('runs callers of one key one at a time, in arrival order', async () => {
    const mutex = createKeyedMutex();
    const order: string[] = [];
    let inside = 0;
    let most = 0;
    const work = (name: string) =>
      mutex.run('stream-a', async () => {
        inside++;
        most = Math.max(most, inside);
        order.push(`start ${name}`);
        await tick();
        await tick();
        order.push(`end ${name}`);
        inside--;
        return name;
      });
    const results = await Promise.all(['1', '2', '3', '4', '5'].map(work));
    expect(results).toEqual(['1', '2', '3', '4', '5']);
    expect(most).toBe(1);
    expect(order).toEqual(['1', '2', '3', '4', '5'].flatMap((n) => [`start ${n}`, `end ${n}`]));
  });

  it('never makes one key wait for another', async () => {
    const mutex = createKeyedMutex();
    const held = gate();
    const first = mutex.run('a', () => held.opened);
    let otherRan = false;
    await mutex.run('b', async () => {
      otherRan = true;
    });
    expect(otherRan).toBe(true);
    held.open();
    await first;
  });

  it('a failing holder passes the turn on, and its error reaches only its caller', async () => {
    const mutex = createKeyedMutex();
    const failing = mutex.run('a', async () => {
      await tick();
      throw new Error('boom');
    });
    const next = mutex.run('a', async () => 'next ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next ran');
  });

  it('the second caller starts only after the first has finished', async () => {
    const mutex = createKeyedMutex();
    const held = gate();
    let secondStarted = false;
    const first = mutex.run('a', () => held.opened);
    const second = mutex.run('a', async () => {
      secondStarted = true;
    });
    for (let i = 0; i < 5; i++) await tick();
    expect(secondStarted).toBe(false);
    held.open();
    await Promise.all([first, second]);
    expect(secondStarted).toBe(true);
  });

  it('keeps nothing for keys nobody holds', async () => {
    const mutex = createKeyedMutex();
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => mutex.run(`k${i % 7}`, async () => tick())),
    );
    await mutex.run('k1', async () => {
      expect(mutex.size()).toBe(1);
    });
    expect(mutex.size()).toBe(0);
  });

  it('passes a shared failure on to the callers already waiting, not to later ones', async () => {
    const down = Object.assign(new Error('no answer'), { code: 'EDBTIMEOUT' });
    const mutex = createKeyedMutex({
      sharedFailure: (e) => (e as { code?: string }).code === 'EDBTIMEOUT',
    });
    const held = gate();
    let waitersRan = 0;
    const first = mutex.run('a', async () => {
      await held.opened;
      throw down;
    });
    const waiters = [1, 2, 3].map(() =>
      mutex.run('a', async () => {
        waitersRan++;
      }),
    );
    held.open();
    await expect(first).rejects.toBe(down);
    for (const waiter of waiters) await expect(waiter).rejects.toBe(down);
    expect(waitersRan).toBe(0);
    // a caller arriving after the failure tries for itself
    await expect(mutex.run('a', async () => 'later ran')).resolves.toBe('later ran');
    expect(mutex.size()).toBe(0);
  });

  it('passes on no other failure: each waiter runs', async () => {
    const mutex = createKeyedMutex({ sharedFailure: () => false });
    const failing = mutex.run('a', async () => {
      throw new Error('a broken rule');
    });
    const next = mutex.run('a', async () => 'next ran');
    await expect(failing).rejects.toThrow('a broken rule');
    await expect(next).resolves.toBe('next ran');
  });
});
