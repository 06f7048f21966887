// Read table `api_keys`: key metadata and the SHA-256 of each key, never the key itself.
import type { Db, ReadTable } from './readTable.ts';
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
    revoked_at TIMESTAMPTZ
  );
  CREATE INDEX IF NOT EXISTS api_keys_workspace ON api_keys (workspace_id)`,
  handles: ['ApiKeyIssued', 'ApiKeyRevoked'],
  apply: async (db, event) => {
    if (event.type === 'ApiKeyIssued') {
      const { keyId, workspaceId, keyHash, label, expiresAt, occurredAt } = event.data;
      await db.query(
        `INSERT INTO api_keys (key_id, workspace_id, key_hash, label, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key_id) DO NOTHING`,
        [keyId, workspaceId, keyHash, label, expiresAt, occurredAt],
      );
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
  expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
};

const columns = `key_id AS id, workspace_id, label, ${utc('expires_at')}, ${utc('created_at')},
  ${utc('revoked_at')}`;

export const listApiKeys = async (db: Db, workspaceId: string) =>
  (
    await db.query<ApiKeyRow>(
      `SELECT ${columns} FROM api_keys WHERE workspace_id = $1 ORDER BY created_at, key_id`,
      [workspaceId],
    )
  ).rows;

export const findApiKey = async (db: Db, keyId: string) =>
  (await db.query<ApiKeyRow>(`SELECT ${columns} FROM api_keys WHERE key_id = $1`, [keyId]))
    .rows[0] ?? null;

/** The row for a key hash, with its stored hash so the caller can compare in constant time. */
export const findApiKeyByHash = async (db: Db, keyHash: string) =>
  (
    await db.query<ApiKeyRow & { key_hash: string }>(
      `SELECT ${columns}, key_hash FROM api_keys WHERE key_hash = $1`,
      [keyHash],
    )
  ).rows[0] ?? null;
