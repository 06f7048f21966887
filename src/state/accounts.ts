// What signing in needs that is not derived from events, so `replay` leaves it alone:
// - `user_credentials`: password hashes (argon2id). An event names a credential by id
//   (UserPasswordSet); the hash itself never enters the log, its exports or its chain.
// - `sessions`: who is signed in, by the SHA-256 of each session's cookie (never the cookie).
// - `sign_in_failures`: recent wrong attempts, per account and per address, for the throttle.
import type { Db } from '../readTables/readTable.ts';
import { utc } from '../readTables/sql.ts';

export const ACCOUNTS_DDL = `
CREATE TABLE IF NOT EXISTS user_credentials (
  credential_id UUID PRIMARY KEY,
  user_id UUID NOT NULL,
  hash TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  session_id UUID PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id UUID NOT NULL,
  csrf_token TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  last_seen_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  ended_at TIMESTAMPTZ,
  client_ip TEXT,
  user_agent TEXT
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id);
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS flash TEXT;
CREATE TABLE IF NOT EXISTS sign_in_failures (
  subject TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS sign_in_failures_subject ON sign_in_failures (subject, at);
ALTER TABLE sign_in_failures ADD COLUMN IF NOT EXISTS attempt UUID;
`;

export const saveCredential = async (
  db: Db,
  c: { credentialId: string; userId: string; hash: string; now: Date },
) => {
  await db.query(
    `INSERT INTO user_credentials (credential_id, user_id, hash, created_at)
     VALUES ($1, $2, $3, $4)`,
    [c.credentialId, c.userId, c.hash, c.now],
  );
};

export const credentialHash = async (db: Db, credentialId: string) =>
  (
    await db.query<{ hash: string }>('SELECT hash FROM user_credentials WHERE credential_id = $1', [
      credentialId,
    ])
  ).rows[0]?.hash ?? null;

export type SessionRow = {
  session_id: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  client_ip: string | null;
  user_agent: string | null;
};

export const createSession = async (
  db: Db,
  s: {
    sessionId: string;
    tokenHash: string;
    userId: string;
    csrfToken: string;
    now: Date;
    expiresAt: Date;
    clientIp: string | null;
    userAgent: string | null;
  },
) => {
  await db.query(
    `INSERT INTO sessions (session_id, token_hash, user_id, csrf_token, created_at, last_seen_at,
       expires_at, client_ip, user_agent)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8)`,
    [s.sessionId, s.tokenHash, s.userId, s.csrfToken, s.now, s.expiresAt, s.clientIp, s.userAgent],
  );
};

const sessionColumns = `session_id, user_id, csrf_token, ${utc('created_at')},
  ${utc('last_seen_at')}, ${utc('expires_at')}, client_ip, user_agent`;

/** A live session by its token's hash: not ended, not past its absolute expiry. */
export const findSession = async (db: Db, tokenHash: string, now: Date) =>
  (
    await db.query<SessionRow & { last_seen: Date }>(
      `SELECT ${sessionColumns}, last_seen_at AS last_seen FROM sessions
       WHERE token_hash = $1 AND ended_at IS NULL AND expires_at > $2`,
      [tokenHash, now],
    )
  ).rows[0] ?? null;

export const touchSession = async (db: Db, sessionId: string, now: Date) => {
  await db.query('UPDATE sessions SET last_seen_at = $2 WHERE session_id = $1', [sessionId, now]);
};

/** Ends a session (sign out, revoke, idle): true when it was live. */
export const endSession = async (db: Db, sessionId: string, userId: string, now: Date) =>
  ((
    await db.query(
      `UPDATE sessions SET ended_at = $3
       WHERE session_id = $1 AND user_id = $2 AND ended_at IS NULL`,
      [sessionId, userId, now],
    )
  ).rowCount ?? 0) > 0;

export const endUserSessions = async (db: Db, userId: string, now: Date) => {
  await db.query('UPDATE sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL', [
    userId,
    now,
  ]);
};

/** Every session of the person but this one (a password change signs the others out). */
export const endOtherSessions = async (db: Db, userId: string, keep: string, now: Date) => {
  await db.query(
    `UPDATE sessions SET ended_at = $3
     WHERE user_id = $1 AND session_id <> $2 AND ended_at IS NULL`,
    [userId, keep, now],
  );
};

/** Keeps a message for the session's next page (sealed: see src/app/accounts/flash.ts). */
export const setFlash = async (db: Db, sessionId: string, sealed: string) => {
  await db.query('UPDATE sessions SET flash = $2 WHERE session_id = $1', [sessionId, sealed]);
};

/** The session's message, taken: the next page has it, the one after does not. */
export const takeFlash = async (db: Db, sessionId: string) =>
  (
    await db.query<{ flash: string | null }>(
      `UPDATE sessions s SET flash = NULL FROM (SELECT flash FROM sessions WHERE session_id = $1
       FOR UPDATE) old WHERE s.session_id = $1 RETURNING old.flash`,
      [sessionId],
    )
  ).rows[0]?.flash ?? null;

export const listSessions = async (db: Db, userId: string, now: Date) =>
  (
    await db.query<SessionRow>(
      `SELECT ${sessionColumns} FROM sessions
       WHERE user_id = $1 AND ended_at IS NULL AND expires_at > $2
       ORDER BY last_seen_at DESC`,
      [userId, now],
    )
  ).rows;

/**
 * Counts an attempt against its subjects before its secret is checked (a right one takes it
 * back with `releaseAttempt`): attempts checked in parallel see each other.
 */
export const reserveAttempt = async (db: Db, subjects: string[], attempt: string, now: Date) => {
  await db.query(
    `INSERT INTO sign_in_failures (subject, at, attempt) SELECT s, $2, $3 FROM unnest($1::text[]) AS s`,
    [subjects, now, attempt],
  );
};

export const releaseAttempt = async (db: Db, attempt: string) => {
  await db.query('DELETE FROM sign_in_failures WHERE attempt = $1', [attempt]);
};

/** Wrong attempts since `since` for each subject (an account's email, a client address). */
export const countFailures = async (db: Db, subjects: string[], since: Date) =>
  new Map(
    (
      await db.query<{ subject: string; n: string }>(
        `SELECT subject, count(*) AS n FROM sign_in_failures
         WHERE subject = ANY($1::text[]) AND at > $2 GROUP BY subject`,
        [subjects, since],
      )
    ).rows.map((r) => [r.subject, Number(r.n)]),
  );

export const clearFailures = async (db: Db, subject: string) => {
  await db.query('DELETE FROM sign_in_failures WHERE subject = $1', [subject]);
};

export const pruneFailures = async (db: Db, before: Date) => {
  await db.query('DELETE FROM sign_in_failures WHERE at < $1', [before]);
};
