// API keys: issue (the key is shown once), list (never the key), roll and revoke. The admin CLI
// names a workspace; the dashboard passes the signed-in person's workspace id, and a key of
// another workspace is then as unknown as no key at all.
import { randomUUID } from 'node:crypto';
import { generateApiKey, hashApiKey, type KeyStatus, keyStatus } from '../domain/apiKey.ts';
import { InvalidInput, NotFound } from '../domain/errors.ts';
import { plainName } from '../domain/flipbookFields.ts';
import { isUuid } from '../domain/uuid.ts';
import {
  type ApiKeyListRow,
  findApiKey,
  listApiKeys as queryApiKeys,
} from '../readTables/apiKeys.ts';
import { findWorkspaceById } from '../readTables/workspaces.ts';
import type { Store } from '../store/store.ts';
import { runWorkspaceCommand } from './commands.ts';
import { type EventMetadata, type ShownMetadata, showMetadata } from './eventContext.ts';
import { requireWorkspace } from './workspaces.ts';

const MAX_LABEL = 200;

/** A workspace by its name (the admin CLI) or its id (the dashboard). */
export type WorkspaceRef = string | { id: string };

export type IssuedKey = { id: string; key: string; workspace: string; expires_at: string | null };

export type RolledKey = IssuedKey & {
  /** the key it replaces, which works until `old_key_valid_until` */
  rolled_from: string;
  old_key_valid_until: string;
};

export type ApiKeyListing = {
  id: string;
  /** the key's name (`--name`), null when it was given none */
  label: string | null;
  /** the first 8 hex digits of the key's SHA-256 */
  fingerprint: string;
  /** who issued it (`unknown` for keys from before the audit trail) */
  created_by: ShownMetadata['actor'];
  created_at: string;
  expires_at: string | null;
  /** when it last authenticated a request, to within the recording interval; null: never */
  last_used_at: string | null;
  status: KeyStatus;
  revoked_at: string | null;
  /** set once rolled: the key stops working at this time (the grace its holder was given) */
  valid_until: string | null;
  rolled_from: string | null;
  rolled_to: string | null;
};

/**
 * Who may roll or revoke a key from the dashboard: an owner any key of the workspace, a member
 * only the keys they created themselves (a member must not cut off the owners' CI, or take over
 * a key by rolling it).
 */
export const mayManageKey = (
  person: { id: string; role: string },
  key: Pick<ApiKeyListing, 'created_by'>,
) => person.role === 'owner' || (key.created_by.type === 'user' && key.created_by.id === person.id);

export const issueApiKey = async (
  store: Store,
  input: {
    workspace: WorkspaceRef;
    label?: string;
    /** ISO 8601 date or date-time; a bare date is midnight UTC */
    expires?: string;
    /** or a lifetime from now (the dashboard offers 30, 90 and 365 days) */
    expiresInMs?: number;
  },
  metadata: EventMetadata,
  now: Date,
): Promise<IssuedKey> => {
  const workspace = await findWorkspace(store, input.workspace);
  const expiresAt = expiryOf(input, now);
  // Shown in lists beside who made it: no invisible or direction-reversing characters.
  const label = input.label?.trim() ? plainName('key name', input.label) : null;
  if (label && label.length > MAX_LABEL) {
    throw new InvalidInput(`Key name must be at most ${MAX_LABEL} characters`);
  }
  const key = generateApiKey();
  const keyId = randomUUID();
  await runWorkspaceCommand(
    store,
    workspace.id,
    { type: 'IssueApiKey', data: { keyId, keyHash: hashApiKey(key), label, expiresAt, now } },
    metadata,
  );
  return {
    id: keyId,
    key,
    workspace: workspace.name,
    expires_at: expiresAt?.toISOString() ?? null,
  };
};

export const listApiKeys = async (
  store: Store,
  workspace: WorkspaceRef,
  now: Date,
): Promise<ApiKeyListing[]> => {
  const found = await findWorkspace(store, workspace);
  return (await queryApiKeys(store.db, found.id)).map((row) => listing(row, now));
};

/**
 * A new key with the same name and lifetime, shown once; the old one keeps working for
 * `graceMs` (0: refused from now on, by every daemon at its next request).
 */
export const rollApiKey = async (
  store: Store,
  input: { keyId: string; graceMs: number; workspaceId?: string },
  metadata: EventMetadata,
  now: Date,
): Promise<RolledKey> => {
  if (!Number.isSafeInteger(input.graceMs) || input.graceMs < 0) {
    throw new InvalidInput('The grace period must be a whole number of milliseconds, 0 or more');
  }
  const old = await findKey(store, input.keyId, input.workspaceId);
  const key = generateApiKey();
  const newKeyId = randomUUID();
  const { events } = await runWorkspaceCommand(
    store,
    old.workspace_id,
    {
      type: 'RollApiKey',
      data: {
        keyId: old.id,
        newKeyId,
        newKeyHash: hashApiKey(key),
        graceMs: input.graceMs,
        now,
      },
    },
    metadata,
  );
  // A fresh new key id: the decider either refused or appended both events.
  let expiresAt: string | null = null;
  let validUntil = now.toISOString();
  for (const event of events) {
    if (event.type === 'ApiKeyIssued') expiresAt = event.data.expiresAt;
    if (event.type === 'ApiKeyRolled') validUntil = event.data.validUntil;
  }
  const workspace = await findWorkspaceById(store.db, old.workspace_id);
  return {
    id: newKeyId,
    key,
    workspace: workspace?.name ?? old.workspace_id,
    expires_at: expiresAt,
    rolled_from: old.id,
    old_key_valid_until: validUntil,
  };
};

export const revokeApiKey = async (
  store: Store,
  input: { keyId: string; workspaceId?: string },
  metadata: EventMetadata,
  now: Date,
) => {
  const key = await findKey(store, input.keyId, input.workspaceId);
  await runWorkspaceCommand(
    store,
    key.workspace_id,
    { type: 'RevokeApiKey', data: { keyId: key.id, now } },
    metadata,
  );
  return { id: key.id, revoked: true };
};

const listing = (row: ApiKeyListRow, now: Date): ApiKeyListing => ({
  id: row.id,
  label: row.label,
  fingerprint: row.fingerprint,
  created_by: showMetadata({ actor: row.created_by }).actor,
  created_at: row.created_at,
  expires_at: row.expires_at,
  last_used_at: row.last_used_at,
  status: keyStatus(
    { revokedAt: row.revoked_at, expiresAt: row.expires_at, validUntil: row.valid_until },
    now,
  ),
  revoked_at: row.revoked_at,
  valid_until: row.valid_until,
  rolled_from: row.rolled_from,
  rolled_to: row.rolled_to,
});

const findWorkspace = async (store: Store, ref: WorkspaceRef) => {
  if (typeof ref === 'string') return requireWorkspace(store, ref);
  const workspace = isUuid(ref.id) ? await findWorkspaceById(store.db, ref.id) : null;
  if (!workspace) throw new NotFound('Workspace not found');
  return workspace;
};

const findKey = async (store: Store, keyId: string, workspaceId?: string) => {
  const key = isUuid(keyId) ? await findApiKey(store.db, keyId) : null;
  if (!key || (workspaceId !== undefined && key.workspace_id !== workspaceId)) {
    throw new NotFound(`No API key with id ${keyId}`);
  }
  return key;
};

// ISO 8601 with a date; a bare date means the start of that day in UTC.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const expiryOf = (input: { expires?: string; expiresInMs?: number }, now: Date) => {
  if (input.expires !== undefined && input.expiresInMs !== undefined) {
    throw new InvalidInput('Give an expiry date or a lifetime, not both');
  }
  if (input.expiresInMs !== undefined) {
    if (!Number.isSafeInteger(input.expiresInMs) || input.expiresInMs <= 0) {
      throw new InvalidInput('A key’s lifetime must be a whole number of milliseconds above 0');
    }
    return new Date(now.getTime() + input.expiresInMs);
  }
  if (input.expires === undefined) return null;
  const date = new Date(input.expires);
  if (!ISO_8601.test(input.expires) || Number.isNaN(date.getTime())) {
    throw new InvalidInput(
      `The expiry must be an ISO-8601 date or date-time, got "${input.expires}"`,
    );
  }
  // Date reads 2027-02-30 as 2 March: a day that does not exist is refused, not moved.
  const day = input.expires.slice(0, 10);
  if (new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day) {
    throw new InvalidInput(`The expiry names a day that does not exist: ${day}`);
  }
  return date;
};
