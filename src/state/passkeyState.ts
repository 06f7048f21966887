// What passkeys need that is not derived from events, so `replay` leaves it alone (created with
// the operational tables in src/store/schema.ts, not listed in index.ts; no foreign keys to the
// read tables a replay drops):
// - `passkey_handles`: each person's WebAuthn user handle, 32 random bytes made at their first
//   passkey and kept for good (an authenticator keeps one passkey per site and handle, so a
//   second registration on one device replaces the first rather than piling up). Not the email,
//   not the user id: the handle is all an authenticator learns about who the person is.
// - `passkey_usage`: each passkey's sign counter and last use, written at every passkey sign-in.
//   A counter that does not move forward betrays a cloned authenticator; keeping its updates
//   out of the log keeps a sign-in to one event (UserSignedIn).
// - `passkey_challenges`: challenges waiting for the browser's answer, single use, a few minutes
//   long: `register:<session id>` for a signed-in person adding a passkey (one at a time per
//   session), `sign-in:<SHA-256 of a random token>` for someone signing in, whose token is in a
//   short-lived HttpOnly cookie (only its hash is kept here).
import type { Db } from '../readTables/readTable.ts';

export const PASSKEY_STATE_DDL = `
CREATE TABLE IF NOT EXISTS passkey_handles (
  user_id UUID PRIMARY KEY,
  handle TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS passkey_usage (
  credential_id TEXT PRIMARY KEY,
  counter BIGINT NOT NULL,
  last_used_at TIMESTAMPTZ
);
CREATE TABLE IF NOT EXISTS passkey_challenges (
  key TEXT PRIMARY KEY,
  challenge TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS passkey_challenges_expiry ON passkey_challenges (expires_at);
`;

/** The person's handle: the one they have, or `fresh` made theirs (two racing calls agree). */
export const userHandle = async (db: Db, userId: string, fresh: string) => {
  await db.query(
    `INSERT INTO passkey_handles (user_id, handle) VALUES ($1, $2)
     ON CONFLICT (user_id) DO NOTHING`,
    [userId, fresh],
  );
  const { rows } = await db.query<{ handle: string }>(
    'SELECT handle FROM passkey_handles WHERE user_id = $1',
    [userId],
  );
  return rows[0]?.handle ?? fresh;
};

export const findUserHandle = async (db: Db, userId: string) =>
  (
    await db.query<{ handle: string }>('SELECT handle FROM passkey_handles WHERE user_id = $1', [
      userId,
    ])
  ).rows[0]?.handle ?? null;

/** A challenge for `key`, replacing any other waiting there; expired ones are dropped on the way. */
export const saveChallenge = async (
  db: Db,
  c: { key: string; challenge: string; expiresAt: Date; now: Date },
) => {
  await db.query('DELETE FROM passkey_challenges WHERE expires_at <= $1', [c.now]);
  await db.query(
    `INSERT INTO passkey_challenges (key, challenge, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET challenge = EXCLUDED.challenge, expires_at = EXCLUDED.expires_at`,
    [c.key, c.challenge, c.expiresAt],
  );
};

/** Takes the challenge waiting at `key` (once: it is gone after), or null. */
export const takeChallenge = async (db: Db, key: string) =>
  (
    await db.query<{ challenge: string; expires_at: Date }>(
      'DELETE FROM passkey_challenges WHERE key = $1 RETURNING challenge, expires_at',
      [key],
    )
  ).rows[0] ?? null;

export const startUsage = async (db: Db, credentialId: string, counter: number) => {
  await db.query(
    `INSERT INTO passkey_usage (credential_id, counter) VALUES ($1, $2)
     ON CONFLICT (credential_id) DO UPDATE SET counter = EXCLUDED.counter, last_used_at = NULL`,
    [credentialId, counter],
  );
};

/**
 * Records a sign-in's counter, only if it moved forward from the one the check read (or both
 * are 0: many passkeys, synced ones above all, never count). False when another sign-in got
 * there first with the same counter: a cloned authenticator, or a replayed answer.
 */
export const recordUse = async (
  db: Db,
  u: { credentialId: string; read: number; counter: number; at: Date },
) =>
  ((
    await db.query(
      `INSERT INTO passkey_usage AS p (credential_id, counter, last_used_at) VALUES ($1, $2, $3)
       ON CONFLICT (credential_id) DO UPDATE
         SET counter = EXCLUDED.counter, last_used_at = EXCLUDED.last_used_at
         WHERE p.counter = $4 AND (EXCLUDED.counter > p.counter OR EXCLUDED.counter = 0)`,
      [u.credentialId, u.counter, u.at, u.read],
    )
  ).rowCount ?? 0) > 0;

export const forgetUsage = async (db: Db, credentialId: string) => {
  await db.query('DELETE FROM passkey_usage WHERE credential_id = $1', [credentialId]);
};
