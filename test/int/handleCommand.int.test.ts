// handleCommand against real PostgreSQL: writers of one stream in this process take turns (no
// version conflict at all), a writer outside our queue (standing in for another process) is
// retried past, and a stream that never stops changing ends in 503 with Retry-After, never 409.
import { randomUUID } from 'node:crypto';
import type { Event } from '@event-driven-io/emmett';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleCommand, StoreBusy } from '../../src/store/handleCommand.ts';
import type { Store } from '../../src/store/store.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { openTestStore } from '../support/stores.ts';

// A counter stream: no read table handles its events, so nothing but the stream is involved.
type Ticked = Event<'Ticked', { n: number }>;
const counter = {
  initialState: () => 0,
  evolve: (_state: number, event: Ticked) => event.data.n,
};
const tick = (state: number): Ticked[] => [{ type: 'Ticked', data: { n: state + 1 } }];

describe('handleCommand on the postgres store', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore('postgres');
  });
  afterAll(() => store?.close());

  /** Appends straight to the stream, bypassing the in-process queue: another process's write. */
  const foreignWrite = async (stream: string) => {
    const { state, currentStreamVersion } = await store.events.aggregateStream(stream, counter);
    await store.events.appendToStream<Ticked>(stream, tick(state), {
      expectedStreamVersion: currentStreamVersion ?? 0n,
    });
  };

  /**
   * The real event store, except that after each of the first `times` reads another process
   * (a direct append) writes to the stream: our decision is then stale when it is appended.
   */
  const overtakenStore = (times: number) => {
    let reads = 0;
    const events = store.events;
    return {
      reads: () => reads,
      events: new Proxy(events, {
        get: (target, name, receiver) => {
          if (name !== 'aggregateStream') return Reflect.get(target, name, receiver);
          return async (stream: string, options: typeof counter) => {
            const read = await target.aggregateStream(stream, options);
            if (reads++ < times) await foreignWrite(stream);
            return read;
          };
        },
      }),
    };
  };

  it('40 simultaneous writers of one stream all land, in one unbroken sequence', async () => {
    const stream = `counter-${randomUUID()}`;
    await Promise.all(
      Array.from({ length: 40 }, () =>
        handleCommand(store.events, stream, counter, tick, TEST_METADATA),
      ),
    );
    const { state, currentStreamVersion } = await store.events.aggregateStream(stream, counter);
    expect(state).toBe(40);
    expect(currentStreamVersion).toBe(40n);
  });

  it('decides again when another process wrote first, until its append lands', async () => {
    const stream = `counter-${randomUUID()}`;
    const overtaken = overtakenStore(3);
    const result = await handleCommand(overtaken.events, stream, counter, tick, TEST_METADATA);
    // Three stale decisions refused, the fourth decided on the three foreign writes.
    expect(overtaken.reads()).toBe(4);
    expect(result.state).toBe(4);
    expect((await store.events.aggregateStream(stream, counter)).currentStreamVersion).toBe(4n);
  });

  it('answers 503 with Retry-After, not 409, when another process wins every time', {
    timeout: 30_000,
  }, async () => {
    const stream = `counter-${randomUUID()}`;
    const overtaken = overtakenStore(Number.POSITIVE_INFINITY);
    const busy = await handleCommand(overtaken.events, stream, counter, tick, TEST_METADATA).catch(
      (error: unknown) => error,
    );
    expect(busy).toBeInstanceOf(StoreBusy);
    expect((busy as StoreBusy).status).toBe(503);
    expect((busy as StoreBusy).headers).toEqual({ 'Retry-After': '1' });
    expect(overtaken.reads()).toBe(20);
  });
});
