// The mail outbox: every mail the service sends is a row here first (queueMail, in the caller's
// transaction when it has one), and a sender in every daemon (src/mail/sender.ts) takes due rows
// (FOR UPDATE SKIP LOCKED, then a lease, as the webhooks' outbox does), hands them to the mail
// server and records the outcome. A recipient and a body are personal data: the contents go the
// moment a mail is sent or given up, the rest after MAIL_KEPT_DAYS, and forgetRecipient takes an
// address away at once. Not a read table (no event could rebuild it): a replay leaves it alone.
import { randomUUID } from 'node:crypto';
import { isMailAddress } from '../mail/mailSettings.ts';
import type { Db } from '../readTables/readTable.ts';

/** Days a finished mail's row (kind, recipient, attempts, outcome: never its contents) is kept. */
export const MAIL_KEPT_DAYS = { sent: 7, failed: 30 } as const;
/** A queued mail older than this, unsent, means mail is failing (mailHealth). */
export const MAIL_LATE_MS = 5 * 60 * 1000;

export const MAIL_OUTBOX_DDL = `
CREATE TABLE IF NOT EXISTS mail_outbox (
  mail_id UUID PRIMARY KEY,
  -- what it is for (reader_code, link_opened...) and what it is about (a link's id): never personal
  kind TEXT NOT NULL,
  ref TEXT,
  recipient TEXT NOT NULL,
  -- the contents, emptied once the mail is sent or given up
  subject TEXT,
  text_body TEXT,
  html_body TEXT,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INT NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL,
  next_at TIMESTAMPTZ NOT NULL,
  -- not sent after this (a code that has run out)
  expires_at TIMESTAMPTZ,
  -- a sender holds it until then; past it, another daemon may take it over
  lease_until TIMESTAMPTZ,
  last_attempt_at TIMESTAMPTZ,
  -- the server's reply code of the last attempt (250, 450, 550...), null when none came
  last_code INT,
  last_error TEXT,
  finished_at TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS mail_outbox_due ON mail_outbox (next_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS mail_outbox_finished ON mail_outbox (finished_at) WHERE status <> 'pending';
CREATE INDEX IF NOT EXISTS mail_outbox_recipient ON mail_outbox (lower(recipient));
`;

export type OutgoingMail = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** what the mail is for, for logs and the health figures: `reader_code`, `link_opened`... */
  kind: string;
  /** what it is about (a link's id, a reading's): never an address or a name */
  ref?: string | null;
  /** not sent after this time (a code's end) */
  expiresAt?: Date;
};

const LINE_BREAK = /[\r\n]/;

/**
 * Queues a mail to be sent as soon as a sender takes it, and returns its id. Given a transaction's
 * client, the mail exists exactly when that transaction commits. Throws on a mail no server
 * should see (a malformed recipient, a line break in the subject): the caller checked its input.
 */
export const queueMail = async (db: Db, mail: OutgoingMail, now: Date, id = randomUUID()) => {
  if (!isMailAddress(mail.to)) throw new Error('queueMail: the recipient is not one address');
  if (LINE_BREAK.test(mail.subject) || mail.subject.length > 500) {
    throw new Error('queueMail: a subject is one line of at most 500 characters');
  }
  if (!/^[a-z][a-z0-9_]{0,39}$/.test(mail.kind)) {
    throw new Error('queueMail: a kind is a short snake_case name');
  }
  await db.query(
    `INSERT INTO mail_outbox (mail_id, kind, ref, recipient, subject, text_body, html_body,
       created_at, next_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)`,
    [
      id,
      mail.kind,
      mail.ref ?? null,
      mail.to,
      mail.subject,
      mail.text,
      mail.html ?? null,
      now,
      mail.expiresAt ?? null,
    ],
  );
  return id;
};

export type ClaimedMail = {
  mail_id: string;
  kind: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  attempts: number;
  created_at: Date;
  expires_at: Date | null;
};

/**
 * Leases up to `limit` due mails, oldest first, to the caller until `leaseUntil`, each attempt
 * counted: rows another sender holds (locked now, or leased) are skipped, so no two daemons send
 * one mail at once.
 */
export const claimDueMail = async (db: Db, now: Date, leaseUntil: Date, limit: number) =>
  (
    await db.query<ClaimedMail>(
      `WITH due AS (
         SELECT mail_id FROM mail_outbox
         WHERE status = 'pending' AND next_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
         ORDER BY next_at LIMIT $3
         FOR UPDATE SKIP LOCKED)
       UPDATE mail_outbox m SET lease_until = $2, attempts = m.attempts + 1, last_attempt_at = $1
       FROM due WHERE m.mail_id = due.mail_id
       RETURNING m.mail_id, m.kind, m.recipient, m.subject, m.text_body, m.html_body, m.attempts,
         m.created_at, m.expires_at`,
      [now, leaseUntil, limit],
    )
  ).rows;

export type MailOutcome =
  | { kind: 'sent'; code: number | null }
  | { kind: 'retry'; code: number | null; error: string; nextAt: Date }
  | { kind: 'failed'; code: number | null; error: string };

/** Records an attempt's outcome; a finished mail (sent or failed) loses its contents there. */
export const recordMailOutcome = (db: Db, mailId: string, now: Date, outcome: MailOutcome) =>
  db.query(
    `UPDATE mail_outbox SET
       status = $3,
       last_code = $4,
       last_error = $5,
       next_at = coalesce($6, next_at),
       finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE $2::timestamptz END,
       subject = CASE WHEN $3 = 'pending' THEN subject END,
       text_body = CASE WHEN $3 = 'pending' THEN text_body END,
       html_body = CASE WHEN $3 = 'pending' THEN html_body END,
       lease_until = NULL
     WHERE mail_id = $1 AND status = 'pending'`,
    [
      mailId,
      now,
      outcome.kind === 'retry' ? 'pending' : outcome.kind,
      outcome.code,
      outcome.kind === 'sent' ? null : outcome.error.slice(0, 500),
      outcome.kind === 'retry' ? outcome.nextAt : null,
    ],
  );

/**
 * Deletes finished mails past their keeping (MAIL_KEPT_DAYS), and mails still queued that long
 * (none is, but where no daemon has a mail server); returns how many went.
 */
export const forgetOldMail = async (db: Db, now: Date) => {
  const day = 24 * 60 * 60 * 1000;
  const result = await db.query(
    `DELETE FROM mail_outbox
     WHERE (status = 'sent' AND finished_at < $1) OR (status = 'failed' AND finished_at < $2)
       OR (status = 'pending' AND created_at < $2)`,
    [
      new Date(now.getTime() - MAIL_KEPT_DAYS.sent * day),
      new Date(now.getTime() - MAIL_KEPT_DAYS.failed * day),
    ],
  );
  return result.rowCount ?? 0;
};

/** Erases every mail to an address, queued or finished (a reader's erasure); returns how many. */
export const forgetRecipient = async (db: Db, address: string) =>
  (await db.query('DELETE FROM mail_outbox WHERE lower(recipient) = lower($1)', [address]))
    .rowCount ?? 0;

export type MailHealth = {
  /** mails waiting to be sent, and given up (kept MAIL_KEPT_DAYS.failed days) */
  queued: number;
  failed: number;
  /** how long the oldest mail still waiting has waited, in seconds; null when none waits */
  oldestQueuedSeconds: number | null;
  /** the latest failed attempt since the last mail sent, null when none (no contents in it) */
  lastError: { at: string; code: number | null; error: string } | null;
  /** a mail has waited over MAIL_LATE_MS, or an attempt failed since the last one sent */
  failing: boolean;
};

/** Whether mail goes out: for the dashboard ("mail is failing") and the metrics. */
export const mailHealth = async (db: Db, now: Date): Promise<MailHealth> => {
  const { rows } = await db.query<{
    queued: number;
    failed: number;
    oldest: Date | null;
    last_sent: Date | null;
  }>(
    `SELECT count(*) FILTER (WHERE status = 'pending')::int AS queued,
       count(*) FILTER (WHERE status = 'failed')::int AS failed,
       min(created_at) FILTER (WHERE status = 'pending') AS oldest,
       max(finished_at) FILTER (WHERE status = 'sent') AS last_sent
     FROM mail_outbox`,
  );
  const { queued = 0, failed = 0, oldest = null, last_sent = null } = rows[0] ?? {};
  const errors = await db.query<{ at: Date; code: number | null; error: string }>(
    `SELECT last_attempt_at AS at, last_code AS code, last_error AS error FROM mail_outbox
     WHERE last_error IS NOT NULL AND last_attempt_at > coalesce($1, '-infinity'::timestamptz)
     ORDER BY last_attempt_at DESC LIMIT 1`,
    [last_sent],
  );
  const last = errors.rows[0];
  const oldestQueuedSeconds =
    oldest === null ? null : Math.max(0, Math.floor((now.getTime() - oldest.getTime()) / 1000));
  return {
    queued,
    failed,
    oldestQueuedSeconds,
    lastError: last ? { at: last.at.toISOString(), code: last.code, error: last.error } : null,
    failing:
      last !== undefined ||
      (oldestQueuedSeconds !== null && oldestQueuedSeconds * 1000 > MAIL_LATE_MS),
  };
};

/** Codes mailed (or waiting) to an address since `since` (issue 44: a few an hour at most). */
export const codesMailedTo = async (db: Db, address: string, since: Date) =>
  Number(
    (
      await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM mail_outbox
         WHERE kind = 'reader_code' AND lower(recipient) = lower($1) AND created_at >= $2`,
        [address, since],
      )
    ).rows[0]?.n ?? 0,
  );
