// Runs a decision against a stream: read, decide, append with the version we read. A concurrent
// writer makes the append fail with a version conflict; we read again and decide again, a bounded
// number of times. Emmett's errors are matched by errorCode: across its packages `instanceof` fails.
import type { Event } from '@event-driven-io/emmett';
import type { PostgresEventStore } from '@event-driven-io/emmett-postgresql';
import { Conflict } from '../domain/errors.ts';

export type Decider<State, E extends Event> = {
  evolve: (state: State, event: E) => State;
  initialState: () => State;
};

export type Handled<State, E> = { events: E[]; state: State };

const MAX_ATTEMPTS = 12;

export const handleCommand = async <State, E extends Event>(
  store: PostgresEventStore,
  streamName: string,
  decider: Decider<State, E>,
  decide: (state: State) => E[],
): Promise<Handled<State, E>> => {
  for (let attempt = 1; ; attempt++) {
    const { state, currentStreamVersion } = await store.aggregateStream<State, E>(streamName, {
      evolve: decider.evolve,
      initialState: decider.initialState,
    });
    const events = decide(state);
    if (events.length === 0) return { events, state };
    try {
      // 0n for a new stream: Emmett 0.42 does not enforce STREAM_DOES_NOT_EXIST, but 0n works.
      await store.appendToStream<E>(streamName, events, {
        expectedStreamVersion: currentStreamVersion ?? 0n,
      });
      return { events, state: events.reduce(decider.evolve, state) };
    } catch (error) {
      if (!isVersionConflict(error)) throw error;
      if (attempt >= MAX_ATTEMPTS) {
        throw new Conflict('Too many concurrent changes to this resource; try again');
      }
      // Jittered backoff so competing writers stop colliding in lockstep.
      await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    }
  }
};

export const isVersionConflict = (error: unknown) => {
  const e = error as { errorCode?: number; name?: string } | null;
  return e?.errorCode === 412 || e?.name === 'ExpectedVersionConflictError';
};

/** A unique-constraint violation from PostgreSQL, possibly wrapped by Emmett. */
export const isUniqueViolation = (error: unknown): boolean => {
  const e = error as { code?: string; cause?: unknown } | null;
  if (!e) return false;
  return e.code === '23505' || (e.cause !== undefined && isUniqueViolation(e.cause));
};
