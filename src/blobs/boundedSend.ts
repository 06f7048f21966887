// One operation on the bucket, bounded: retried with jitter while it fails in a way that passes
// (a 5xx, a 429, a reset, a timeout), within a budget of time that covers its attempts and the
// pauses between them; past the budget it fails with the last failure. The SDK's own retry is
// off: its standard strategy keeps a token bucket that a run of 500s drains, after which nothing
// is retried at all (measured: 43 of 200 reads failed with 30 % of requests answering 500).
//
// Within an HTTP request (./server.ts runs each in `withBucketBudget`), the request's operations
// share one budget too: a read's HEAD and GET together answer within it, and so does a request
// whose store is merely slow. Time is counted while at least one operation is under way (a
// render between two writes is not the store's time). An upload's multipart parts go outside it
// (`outsideRequest`): they last as long as the client takes to send its body, and each part has
// its own budget.
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { BucketBusy, BucketTimeout } from './boundedAgent.ts';
import type { BucketLimits } from './bucketLimits.ts';

type Spending = { spentMs: number; active: number; since: number };
const requestBudget = new AsyncLocalStorage<Spending>();

/** Runs `fn` (a request's handling) with one budget for all its bucket operations. */
export const withBucketBudget = <T>(fn: () => T): T =>
  requestBudget.run({ spentMs: 0, active: 0, since: 0 }, fn);

/**
 * Runs `fn` outside any request's budget: work a request starts and does not wait for (a tile
 * rendered for the next request) has each operation's own bound, as a worker's has.
 */
export const outsideRequestBudget = <T>(fn: () => T): T => requestBudget.exit(fn);

const spent = (s: Spending, now: number) => s.spentMs + (s.active > 0 ? now - s.since : 0);

/** Network failures that a second attempt may not meet (the store restarting, a reset). */
const PASSING_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Whether a failed attempt is worth another within the budget. */
export const worthRetrying = (error: unknown): boolean => {
  if (error instanceof BucketBusy) return false;
  const e = error as {
    name?: string;
    code?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
  } | null;
  if (!e || typeof e !== 'object') return false;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429 || Boolean(e.$retryable);
  return e.name === 'TimeoutError' || PASSING_CODES.has(e.code ?? '');
};

/** The pause before attempt `attempt + 1`: full jitter over 100 ms doubling, at most 1 s. */
const pauseMs = (attempt: number) => Math.random() * Math.min(1000, 100 * 2 ** attempt);

export type Attempt<T> = (options: { abortSignal: AbortSignal }) => Promise<T>;

export const boundedSend =
  (limits: BucketLimits) =>
  /**
   * `cancel`: its owner gave up (an upload refused and answered): the attempt under way is
   * aborted and none follows, so no write lands after the caller was told it failed (a retried
   * PUT reaching a bucket back up would leave an object nobody removes).
   */
  async <T>(attempt: Attempt<T>, outsideRequest = false, cancel?: AbortSignal): Promise<T> => {
    const spending = outsideRequest ? undefined : requestBudget.getStore();
    const started = performance.now();
    const budgetMs = spending
      ? Math.min(limits.budgetMs, limits.budgetMs - spent(spending, started))
      : limits.budgetMs;
    const overBudget = () =>
      new BucketTimeout(
        `the bucket gave no answer within ${spending ? "this request's" : 'the'} ${Math.round(limits.budgetMs / 100) / 10} s`,
      );
    if (budgetMs <= 0) throw overBudget();
    const deadline = started + budgetMs;
    if (spending && spending.active++ === 0) spending.since = started;
    try {
      for (let tried = 1; ; tried++) {
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), Math.max(0, deadline - performance.now()));
        try {
          cancel?.throwIfAborted();
          return await attempt({
            abortSignal: cancel ? AbortSignal.any([abort.signal, cancel]) : abort.signal,
          });
        } catch (error) {
          if (cancel?.aborted) throw cancel.reason;
          if (abort.signal.aborted) throw overBudget();
          const pause = pauseMs(tried);
          if (
            !worthRetrying(error) ||
            tried >= limits.attempts ||
            performance.now() + pause >= deadline
          ) {
            throw error;
          }
          await sleep(pause, undefined, cancel ? { signal: cancel } : undefined).catch(() => {
            throw cancel?.reason ?? error;
          });
        } finally {
          clearTimeout(timer);
        }
      }
    } finally {
      if (spending && --spending.active === 0) {
        spending.spentMs += performance.now() - spending.since;
      }
    }
  };
