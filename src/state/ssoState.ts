// What a single sign-on needs between the redirect to the provider and the way back, not derived
// from events, so `replay` leaves it alone (created with the operational tables in
// src/store/schema.ts): `sso_logins`, one row per sign-in under way, keyed by the SHA-256 of its
// `state` (the state itself is in a short-lived HttpOnly cookie of the browser that started it),
// holding the PKCE verifier, the nonce and the page to go back to. Taken once: a replayed
// callback finds nothing.
import type { Db } from '../readTables/readTable.ts';

export const SSO_STATE_DDL = `
CREATE TABLE IF NOT EXISTS sso_logins (
  state_hash TEXT PRIMARY KEY,
  verifier TEXT NOT NULL,
  nonce TEXT NOT NULL,
  next TEXT,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS sso_logins_expiry ON sso_logins (expires_at);
`;

export type SsoLogin = { verifier: string; nonce: string; next: string | null; expires_at: Date };

/** A sign-in under way; expired ones are dropped on the way. */
export const saveSsoLogin = async (
  db: Db,
  login: { stateHash: string; verifier: string; nonce: string; next: string | null },
  expiresAt: Date,
  now: Date,
) => {
  await db.query('DELETE FROM sso_logins WHERE expires_at <= $1', [now]);
  await db.query(
    `INSERT INTO sso_logins (state_hash, verifier, nonce, next, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [login.stateHash, login.verifier, login.nonce, login.next, expiresAt],
  );
};

/** Takes the sign-in under way with this state (once: it is gone after), or null. */
export const takeSsoLogin = async (db: Db, stateHash: string) =>
  (
    await db.query<SsoLogin>(
      `DELETE FROM sso_logins WHERE state_hash = $1
       RETURNING verifier, nonce, next, expires_at`,
      [stateHash],
    )
  ).rows[0] ?? null;
