// When a webhook delivery is tried again, and when it stops: pure, so the schedule is tested
// without waiting for it. Only a 2xx answer delivers. A receiver that answers 410 Gone asked for
// no more (its endpoint is disabled); any other failure is retried with exponential backoff and
// jitter over about a day (the first retry within about 10 s), honouring a Retry-After on 429 and
// 503 when it asks for longer (never shorter: a rate limiter answering "Retry-After: 1" must not
// use up a day's attempts in seconds); a delivery that fails its last attempt disables its endpoint.

/** Seconds to wait after attempt n (1-based) before attempt n + 1; its length bounds the tries. */
export const BACKOFF_SECONDS = [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200];
export const MAX_ATTEMPTS = BACKOFF_SECONDS.length + 1;
/** A Retry-After longer than this is not waited for longer. */
const MAX_RETRY_AFTER_S = 43_200;

export type Answer = { status: number; retryAfter: string | null } | { error: string };

export type Decision =
  | { kind: 'delivered' }
  | { kind: 'gone' }
  | { kind: 'retry'; afterMs: number }
  | { kind: 'give-up' };

/** Retry-After in seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export const retryAfterSeconds = (value: string | null, now: Date): number | null => {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
};

/**
 * What to do after attempt `attempt` got `answer`. `random` in [0, 1) spreads retries ±20 % so
 * that many deliveries failing together do not all come back at the same second.
 */
export const afterAttempt = (
  attempt: number,
  answer: Answer,
  now: Date,
  random: number,
): Decision => {
  if ('status' in answer && answer.status >= 200 && answer.status < 300) {
    return { kind: 'delivered' };
  }
  if ('status' in answer && answer.status === 410) return { kind: 'gone' };
  if (attempt >= MAX_ATTEMPTS) return { kind: 'give-up' };
  const base = BACKOFF_SECONDS[attempt - 1] ?? (BACKOFF_SECONDS.at(-1) as number);
  let seconds = base * (0.8 + 0.4 * random);
  if ('status' in answer && (answer.status === 429 || answer.status === 503)) {
    const asked = retryAfterSeconds(answer.retryAfter, now);
    if (asked !== null) seconds = Math.max(seconds, Math.min(asked, MAX_RETRY_AFTER_S));
  }
  return { kind: 'retry', afterMs: Math.round(seconds * 1000) };
};
