// Who did it, from where, and in which story: the metadata every event carries (docs/audit.md).
// Kept in the event's metadata, never in its data: data is what happened to the flipbook, and
// deciders never see who asked. Names are snake_case, as the API shows them.
import { userInfo } from 'node:os';
import { InvalidInput } from '../domain/errors.ts';

export type Actor =
  | { type: 'api_key'; id: string; name: string | null }
  | { type: 'admin'; id: string }
  /** a person signed in to the dashboard */
  | { type: 'user'; id: string; email: string }
  | { type: 'worker'; id: string }
  | { type: 'system' };

export type EventMetadata = {
  actor: Actor;
  /** the HTTP request that caused it (X-Request-Id) */
  request_id?: string;
  /** recorded unless the operator turned it off (--no-client-info) */
  client_ip?: string;
  user_agent?: string;
  /** the story it belongs to: the request that started it (an upload, for processing) */
  correlation_id?: string;
  /** the event that caused it (processing events: the version's VersionUploaded) */
  causation_id?: string;
  /** an upload's Idempotency-Key and its request's fingerprint (src/app/idempotentUploads.ts) */
  idempotency?: { key: string; fingerprint: string };
};

/** Metadata as the trail shows it: what an old event did not record is null, never missing. */
export type ShownMetadata = {
  actor: Actor | { type: 'unknown' };
  request_id: string | null;
  client_ip: string | null;
  user_agent: string | null;
  correlation_id: string | null;
  causation_id: string | null;
};

const ACTOR_TYPES = new Set(['api_key', 'admin', 'user', 'worker', 'system']);

/** Reads stored metadata of any age (events from before the audit trail have none). */
export const showMetadata = (stored: unknown): ShownMetadata => {
  const m = (stored ?? {}) as Partial<Record<keyof EventMetadata, unknown>>;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const actor = m.actor as Actor | undefined;
  return {
    actor: actor && ACTOR_TYPES.has(actor.type) ? actor : { type: 'unknown' },
    request_id: text(m.request_id),
    client_ip: text(m.client_ip),
    user_agent: text(m.user_agent),
    correlation_id: text(m.correlation_id),
    causation_id: text(m.causation_id),
  };
};

/** An admin command's metadata: --as NAME, or the operating-system user running it. */
export const adminMetadata = (as?: string): EventMetadata => {
  let id = as?.trim();
  // A name an auditor reads in logs and terminals: no control characters (a newline or an
  // escape sequence could forge a line of the trail).
  if (id && /[\p{Cc}]/u.test(id)) {
    throw new InvalidInput('--as must not contain control characters');
  }
  if (!id) {
    try {
      id = userInfo().username;
    } catch {
      id = `uid:${process.getuid?.() ?? 'unknown'}`;
    }
  }
  return { actor: { type: 'admin', id: id.slice(0, 200) } };
};

export const SYSTEM: EventMetadata = { actor: { type: 'system' } };
