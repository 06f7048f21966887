// When a mail that was not sent is tried again, and when it stops: pure, so the schedule is tested
// without waiting for it. Every failure is retried, a 5xx as well as a 4xx or a server away: the
// refusals a self-hosted service meets are mostly its own relay's set-up (authentication, relay
// access, a sender not allowed), which its operator fixes within the day, and a mailbox that does
// not exist costs at most a few attempts. Sooner at first than webhooks (a code is read within
// minutes), then every 4 hours, with ±20 % jitter; a mail still unsent a day after it was queued
// is given up (kept as failed with its reason), and one past its own expiry is not sent at all.

/** Seconds to wait after attempt n (1-based) before attempt n + 1; then the last, again and again. */
export const MAIL_BACKOFF_SECONDS = [10, 30, 60, 120, 300, 600, 1_800, 3_600, 7_200, 14_400];
/** A mail still unsent this long after it was queued is given up. */
export const MAIL_GIVE_UP_MS = 24 * 60 * 60 * 1000;

export type MailDecision = { kind: 'retry'; at: Date } | { kind: 'give-up'; why: string };

/**
 * What to do after attempt `attempt` failed at `now`, for a mail queued at `queuedAt` (and, for a
 * mail that means nothing later, such as a code, expiring at `expiresAt`). `random` in [0, 1)
 * spreads retries ±20 %, so that mails failing together do not all come back at the same second.
 * The last try is at the day's end at the latest, never after it nor after the expiry.
 */
export const afterMailFailure = (
  attempt: number,
  times: { now: Date; queuedAt: Date; expiresAt: Date | null },
  random: number,
): MailDecision => {
  const { now, queuedAt, expiresAt } = times;
  const deadline = Math.min(
    queuedAt.getTime() + MAIL_GIVE_UP_MS,
    expiresAt?.getTime() ?? Number.POSITIVE_INFINITY,
  );
  if (now.getTime() >= deadline) {
    return {
      kind: 'give-up',
      why: expiresAt !== null && deadline === expiresAt.getTime() ? 'expired' : 'a day of retries',
    };
  }
  const base =
    MAIL_BACKOFF_SECONDS[Math.max(0, attempt - 1)] ?? (MAIL_BACKOFF_SECONDS.at(-1) as number);
  const waitMs = Math.round(base * (0.8 + 0.4 * random) * 1000);
  return { kind: 'retry', at: new Date(Math.min(now.getTime() + waitMs, deadline)) };
};
