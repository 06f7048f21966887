// Runs a decision against a stream: read, decide, append with the version we read. Writers of one
// stream inside this process take turns (a keyed mutex), so they never conflict with each other;
// a writer in another process (a second daemon, `flipbook worker`) still can, and then the append
// fails with a version conflict and we read and decide again, with jittered backoff. A conflict
// is never the client's problem: should we ever give up, the answer is 503 with Retry-After.
// Emmett's errors are matched by errorCode: across its packages `instanceof` fails.
import type { Event } from '@event-driven-io/emmett';
import type { PostgresEventStore } from '@event-driven-io/emmett-postgresql';
import { refusal } from '../domain/errors.ts';
import { createKeyedMutex } from './keyedMutex.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

export type Decider<State, E extends Event> = {
  evolve: (state: State, event: E) => State;
  initialState: () => State;
};

export type Handled<State, E> = { events: E[]; state: State };

/** Reads what a decision needs of a stream: its events (possibly trimmed) and its version. */
export type StreamReader<E> = (streamName: string) => Promise<{ events: E[]; version: bigint }>;

/** Still conflicting after every retry: the store is too busy right now; the client may retry. */
export class StoreBusy extends refusal(
  'StoreBusy',
  503,
  'The server is busy with concurrent changes to this resource; try again',
  { 'Retry-After': '1' },
) {}

// Only other processes conflict with us, each holding the stream for one append (milliseconds):
// 20 attempts with backoff growing to 500 ms outlast any realistic burst (at most ~7 s in all).
const MAX_ATTEMPTS = 20;
const MAX_BACKOFF_MS = 500;

// One per process: every store in it shares the stream names' queue.
const streams = createKeyedMutex({ sharedFailure: isDatabaseUnavailable });

export const handleCommand = <State, E extends Event>(
  store: PostgresEventStore,
  streamName: string,
  decider: Decider<State, E>,
  decide: (state: State) => E[],
  /** who, from where, in which story: stored in each event's metadata (docs/audit.md) */
  metadata: Record<string, unknown>,
  /** instead of Emmett's full read: e.g. without the page lists no decision looks at */
  read?: StreamReader<E>,
): Promise<Handled<State, E>> =>
  streams.run(streamName, async () => {
    for (let attempt = 1; ; attempt++) {
      const { state, currentStreamVersion } = read
        ? await read(streamName).then(({ events, version }) => ({
            state: events.reduce(decider.evolve, decider.initialState()),
            currentStreamVersion: version,
          }))
        : await store.aggregateStream<State, E>(streamName, {
            evolve: decider.evolve,
            initialState: decider.initialState,
          });
      const events = decide(state);
      if (events.length === 0) return { events, state };
      try {
        // 0n for a new stream: Emmett 0.42 does not enforce STREAM_DOES_NOT_EXIST, but 0n works.
        const withMetadata = events.map((event) => ({ ...event, metadata }));
        await store.appendToStream<E>(streamName, withMetadata, {
          expectedStreamVersion: currentStreamVersion ?? 0n,
        });
        return { events, state: events.reduce(decider.evolve, state) };
      } catch (error) {
        if (!isVersionConflict(error)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new StoreBusy();
        // Full jitter on an exponential ceiling, so competing processes stop colliding in lockstep.
        const ceiling = Math.min(MAX_BACKOFF_MS, 5 * 2 ** attempt);
        await new Promise((r) => setTimeout(r, Math.random() * ceiling));
      }
    }
  });

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
