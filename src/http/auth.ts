// API key authentication. The key may come as `Authorization: Bearer <key>` or `X-Api-Key: <key>`;
// when both are sent, Authorization wins (it is the recommended header) and X-Api-Key is ignored.
// The format is checked before any lookup, the lookup is by SHA-256, and the stored hash is
// compared in constant time. Every failure is the same 401, so nothing tells a guesser why.
// Keys are read from the database on every request, never cached: a revocation, an expiry or the
// end of a roll's grace refuses the key at once on every daemon. The read is one indexed query
// (the key with its workspace's plan); docs/architecture.md says why no cache stands in for it.
import type { IncomingMessage } from 'node:http';
import type { Caller } from '../app/caller.ts';
import type { EventMetadata } from '../app/eventContext.ts';
import { hashApiKey, isWellFormedApiKey, keyWorks, sameHash } from '../domain/apiKey.ts';
import { refusal } from '../domain/errors.ts';
import { findKeyForRequest } from '../readTables/apiKeys.ts';
import type { Db } from '../readTables/readTable.ts';
import { requestContext } from './requestContext.ts';

export class Unauthorized extends refusal('Unauthorized', 401, 'Unauthorized', {
  'WWW-Authenticate': 'Bearer',
}) {}

export class WorkspaceMissing extends refusal('WorkspaceMissing', 400, 'Workspace not found') {}

export const presentedKey = (req: IncomingMessage): string | null => {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return bearer?.[1] ?? '';
  }
  const header = req.headers['x-api-key'];
  return typeof header === 'string' ? header.trim() : null;
};

export const authenticate = async (
  db: Db,
  req: IncomingMessage,
  /** the daemon's clock: a key expires by it */
  now: Date,
): Promise<Caller & { keyId: string }> => {
  const key = presentedKey(req);
  if (!key || !isWellFormedApiKey(key)) throw new Unauthorized();
  const hash = hashApiKey(key);
  const row = await findKeyForRequest(db, hash);
  if (!row || !sameHash(row.key_hash, hash)) throw new Unauthorized();
  const validity = {
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    validUntil: row.valid_until,
  };
  if (!keyWorks(validity, now)) throw new Unauthorized();
  if (row.plan === null) throw new WorkspaceMissing();
  const { requestId, clientIp, userAgent } = requestContext(req);
  const metadata: EventMetadata = {
    actor: { type: 'api_key', id: row.id, name: row.label },
    request_id: requestId,
    ...(clientIp === null ? {} : { client_ip: clientIp }),
    ...(userAgent === null ? {} : { user_agent: userAgent }),
    // A request starts its own story; processing carries it on (correlation_id).
    correlation_id: requestId,
  };
  return { workspaceId: row.workspace_id, plan: row.plan, keyId: row.id, metadata };
};
