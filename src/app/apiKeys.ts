// API key administration: issue (the key is shown once), list (never the key), revoke.
import { randomUUID } from 'node:crypto';
import { findApiKey, listApiKeys as queryApiKeys } from '../../projections/apiKeys.ts';
import { generateApiKey, hashApiKey } from '../domain/apiKey.ts';
import { InvalidInput, NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Store } from '../store/store.ts';
import { runWorkspaceCommand } from './commands.ts';
import type { EventMetadata } from './eventContext.ts';
import { requireWorkspace } from './workspaces.ts';

const MAX_LABEL = 200;

export type IssuedKey = { id: string; key: string; workspace: string; expires_at: string | null };

export const issueApiKey = async (
  store: Store,
  input: { workspace: string; expires?: string; label?: string },
  metadata: EventMetadata,
): Promise<IssuedKey> => {
  const workspace = await requireWorkspace(store, input.workspace);
  const expiresAt = input.expires === undefined ? null : parseExpiry(input.expires);
  const label = input.label?.trim() || null;
  if (label && label.length > MAX_LABEL) {
    throw new InvalidInput(`Key name must be at most ${MAX_LABEL} characters`);
  }
  const key = generateApiKey();
  const keyId = randomUUID();
  await runWorkspaceCommand(
    store,
    workspace.id,
    {
      type: 'IssueApiKey',
      data: { keyId, keyHash: hashApiKey(key), label, expiresAt, now: new Date() },
    },
    metadata,
  );
  return {
    id: keyId,
    key,
    workspace: workspace.name,
    expires_at: expiresAt?.toISOString() ?? null,
  };
};

export const listApiKeys = async (store: Store, workspaceName: string) => {
  const workspace = await requireWorkspace(store, workspaceName);
  return queryApiKeys(store.db, workspace.id);
};

export const revokeApiKey = async (store: Store, keyId: string, metadata: EventMetadata) => {
  const key = isUuid(keyId) ? await findApiKey(store.db, keyId) : null;
  if (!key) throw new NotFound(`No API key with id ${keyId}`);
  await runWorkspaceCommand(
    store,
    key.workspace_id,
    { type: 'RevokeApiKey', data: { keyId, now: new Date() } },
    metadata,
  );
  return { id: keyId, revoked: true };
};

// ISO 8601 with a date; a bare date means the start of that day in UTC.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const parseExpiry = (text: string) => {
  const date = new Date(text);
  if (!ISO_8601.test(text) || Number.isNaN(date.getTime())) {
    throw new InvalidInput(`--expires must be an ISO-8601 date or date-time, got "${text}"`);
  }
  return date;
};
