// Read table `api_keys`: key metadata and the SHA-256 of each key, never the key itself. Who
// issued a key comes from its ApiKeyIssued's metadata (the actor), so a replay rebuilds it too.
// When a key was last used is not here: see keyUsage.ts.
import type { Plan } from '../domain/workspace/workspace.ts';
import { queryRow, queryRows } from './queryRows.ts';
import { actorOf, type Db, type ReadTable } from './readTable.ts';
import { utc } from './sql.ts';

export const apiKeys: ReadTable = {
  table: 'api_keys',
  ddl: `CREATE TABLE IF NOT EXISTS api_keys (
    key_id UUID PRIMARY KEY,
    workspace_id UUID NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    label TEXT,
    expires_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ,
    -- the actor of the ApiKeyIssued event (null: recorded before the audit trail)
    created_by JSONB,
    -- a roll: the key this one replaced, the key that replaced this one, and the end of its grace
    rolled_from UUID,
    rolled_to UUID,
    valid_until TIMESTAMPTZ
  );
  CREATE INDEX IF NOT EXISTS api_keys_workspace ON api_keys (workspace_id)`,
  handles: ['ApiKeyIssued', 'ApiKeyRolled', 'ApiKeyRevoked'],
  apply: async (db, event) => {
    if (event.type === 'ApiKeyIssued') {
      const { keyId, workspaceId, keyHash, label, expiresAt, occurredAt, rolledFrom } = event.data;
      const actor = actorOf(event);
      await db.query(
        `INSERT INTO api_keys (key_id, workspace_id, key_hash, label, expires_at, created_at,
           created_by, rolled_from)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (key_id) DO NOTHING`,
        [
          keyId,
          workspaceId,
          keyHash,
          label,
          expiresAt,
          occurredAt,
          actor === null ? null : JSON.stringify(actor),
          rolledFrom ?? null,
        ],
      );
    } else if (event.type === 'ApiKeyRolled') {
      await db.query('UPDATE api_keys SET rolled_to = $2, valid_until = $3 WHERE key_id = $1', [
        event.data.keyId,
        event.data.newKeyId,
        event.data.validUntil,
      ]);
    } else if (event.type === 'ApiKeyRevoked') {
      await db.query('UPDATE api_keys SET revoked_at = $2 WHERE key_id = $1', [
        event.data.keyId,
        event.data.occurredAt,
      ]);
    }
  },
};

export type ApiKeyRow = {
  id: string;
  workspace_id: string;
  label: string | null;
  /** the first 8 hex digits of the key's SHA-256 */
  fingerprint: string;
  expires_at: string | null;
  created_at: string;
  created_by: unknown;
  revoked_at: string | null;
  rolled_from: string | null;
  rolled_to: string | null;
  valid_until: string | null;
};

// Times in whole seconds, cut down: a key's validity ends, at worst, under a second early.
const columns = `k.key_id AS id, k.workspace_id, k.label, left(k.key_hash, 8) AS fingerprint,
  ${utc('k.expires_at', 'expires_at')}, ${utc('k.created_at', 'created_at')}, k.created_by,
  ${utc('k.revoked_at', 'revoked_at')}, k.rolled_from, k.rolled_to, ${utc('k.valid_until', 'valid_until')}`;

export type ApiKeyListRow = ApiKeyRow & { last_used_at: string | null };

/** A workspace's keys, oldest first, with when each last authenticated a request (or null). */
export const listApiKeys = async (db: Db, workspaceId: string) =>
  queryRows<ApiKeyListRow>(
    db,
    `SELECT ${columns}, ${utc('u.last_used_at', 'last_used_at')}
       FROM api_keys k LEFT JOIN api_key_usage u USING (key_id)
       WHERE k.workspace_id = $1 ORDER BY k.created_at, k.key_id`,
    [workspaceId],
  );

export const findApiKey = async (db: Db, keyId: string) =>
  queryRow<ApiKeyRow>(db, `SELECT ${columns} FROM api_keys k WHERE k.key_id = $1`, [keyId]);

export type RequestKeyRow = {
  id: string;
  workspace_id: string;
  label: string | null;
  key_hash: string;
  expires_at: string | null;
  revoked_at: string | null;
  valid_until: string | null;
  /** null: the key's workspace no longer exists */
  plan: Plan | null;
};

/**
 * What authenticating a request needs of a key, with its workspace's plan, in one indexed read:
 * the row for a key hash (with the stored hash, for a constant-time comparison). Prepared: it
 * runs on every API request, and parsing and planning it cost twice what running it does.
 */
export const findKeyForRequest = async (db: Db, keyHash: string) =>
  queryRow<RequestKeyRow>(
    db,
    {
      name: 'api-key-for-request',
      text: `SELECT k.key_id AS id, k.workspace_id, k.label, k.key_hash,
           ${utc('k.expires_at', 'expires_at')}, ${utc('k.revoked_at', 'revoked_at')},
           ${utc('k.valid_until', 'valid_until')}, w.plan
         FROM api_keys k LEFT JOIN workspaces w ON w.workspace_id = k.workspace_id
         WHERE k.key_hash = $1`,
    },
    [keyHash],
  );
