// Read table `passkeys`: each person's passkeys (WebAuthn credentials) with what signing in
// checks (the public key, the transports) and what the profile shows (name, created), rebuilt
// from PasskeyAdded and PasskeyRemoved. A removed member's passkeys go with them. The sign
// counter and the last use change at every sign-in and are not events: they live in
// `passkey_usage` (passkeyState.ts), which replay leaves alone, and are joined in here.
import { queryRow, queryRows } from './queryRows.ts';
import type { Db, ReadTable } from './readTable.ts';
import { utc } from './sql.ts';

export const passkeys: ReadTable = {
  table: 'passkeys',
  // credential_id is the primary key: a second PasskeyAdded for one credential fails its
  // append (the inline projection rolls it back), so an id belongs to one person only.
  ddl: `CREATE TABLE IF NOT EXISTS passkeys (
    credential_id TEXT PRIMARY KEY,
    user_id UUID NOT NULL,
    workspace_id UUID NOT NULL,
    name TEXT NOT NULL,
    public_key TEXT NOT NULL,
    transports JSONB NOT NULL,
    device_type TEXT NOT NULL,
    backed_up BOOLEAN NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX IF NOT EXISTS passkeys_user ON passkeys (user_id)`,
  handles: ['PasskeyAdded', 'PasskeyRemoved', 'MemberRemoved'],
  apply: async (db, event) => {
    switch (event.type) {
      case 'PasskeyAdded': {
        const d = event.data;
        await db.query(
          `INSERT INTO passkeys (credential_id, user_id, workspace_id, name, public_key, transports,
             device_type, backed_up, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            d.credentialId,
            d.userId,
            d.workspaceId,
            d.name,
            d.publicKey,
            JSON.stringify(d.transports),
            d.deviceType,
            d.backedUp,
            d.occurredAt,
          ],
        );
        return;
      }
      case 'PasskeyRemoved':
        await db.query('DELETE FROM passkeys WHERE credential_id = $1 AND user_id = $2', [
          event.data.credentialId,
          event.data.userId,
        ]);
        return;
      case 'MemberRemoved':
        await db.query('DELETE FROM passkeys WHERE user_id = $1', [event.data.userId]);
        return;
    }
  },
};

export type PasskeyRow = {
  credential_id: string;
  user_id: string;
  workspace_id: string;
  name: string;
  public_key: string;
  transports: string[];
  device_type: string;
  backed_up: boolean;
  created_at: string;
  /** from passkey_usage: 0 when never recorded */
  counter: number;
  last_used_at: string | null;
};

const columns = `p.credential_id, p.user_id, p.workspace_id, p.name, p.public_key, p.transports,
  p.device_type, p.backed_up, ${utc('p.created_at', 'created_at')},
  COALESCE(u.counter, 0)::float8 AS counter, ${utc('u.last_used_at', 'last_used_at')}`;

/** One person's passkeys, oldest first. */
export const listPasskeys = async (db: Db, userId: string) =>
  queryRows<PasskeyRow>(
    db,
    `SELECT ${columns} FROM passkeys p LEFT JOIN passkey_usage u USING (credential_id)
       WHERE p.user_id = $1 ORDER BY p.created_at, p.credential_id`,
    [userId],
  );

/** A passkey by its credential id, with its counter; null for an unknown (or removed) one. */
export const findPasskey = async (db: Db, credentialId: string) =>
  queryRow<PasskeyRow>(
    db,
    `SELECT ${columns} FROM passkeys p LEFT JOIN passkey_usage u USING (credential_id)
       WHERE p.credential_id = $1`,
    [credentialId],
  );
