// The workspace event feed's index and the webhooks' outbox, both written in the transaction of
// each append, right after the audit chain gives its events their place (src/store/projections.ts).
// The chain's `seq` is the feed's order: appends are chained in commit order (the chain head is
// locked until the commit), so a reader never sees event N+1 before event N has committed, and a
// cursor over seq never skips an event that commits late. Neither table is a read table: like the
// chain, a replay keeps them (the feed refers to the stored events, whose public face is computed
// on read, so an event's shape may change without rewriting them; a delivery made is history).
import { PUBLISHED_STORED_TYPES as PUBLISHED } from '../domain/eventTypes.ts';
import { publicEvent } from '../domain/publicEvents.ts';
import type { Db } from '../readTables/readTable.ts';

export const EVENT_FEED_DDL = `
CREATE TABLE IF NOT EXISTS event_feed (
  seq BIGINT PRIMARY KEY,
  workspace_id UUID NOT NULL,
  stream_id TEXT NOT NULL,
  stream_position BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS event_feed_workspace ON event_feed (workspace_id, seq);
CREATE TABLE IF NOT EXISTS webhook_secrets (
  webhook_id UUID PRIMARY KEY,
  secret TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  delivery_id UUID PRIMARY KEY,
  webhook_id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  -- the feed's seq of the event it carries; null for a test delivery
  seq BIGINT,
  type TEXT NOT NULL,
  -- the body, as sent on every attempt: { "type", "timestamp", "data" }
  payload JSONB NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INT NOT NULL DEFAULT 0,
  next_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  -- a sender holds it until then; past it, another daemon may take it over
  lease_until TIMESTAMPTZ,
  last_status INT,
  last_error TEXT,
  last_attempt_at TIMESTAMPTZ,
  delivered_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (webhook_id, seq)
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_at)
  WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at);
`;

export type ChainedEvent = {
  seq: bigint;
  stream_id: string;
  stream_position: string;
  message_id: string;
  message_type: string;
  message_data: unknown;
};

/**
 * Indexes the append's public events for their workspace's feed and queues a delivery for each
 * enabled endpoint that asked for its type: in the append's transaction, so a crash right after
 * the commit still delivers, and nothing is queued for an append that rolled back.
 */
export const publishAppended = async (db: Db, chained: ChainedEvent[]) => {
  for (const event of chained) {
    const data = (event.message_data ?? {}) as Record<string, unknown>;
    const shown = publicEvent(event.message_type, data);
    const workspaceId = data.workspaceId;
    if (!shown || typeof workspaceId !== 'string') continue;
    await db.query(
      `INSERT INTO event_feed (seq, workspace_id, stream_id, stream_position)
       VALUES ($1, $2, $3, $4) ON CONFLICT (seq) DO NOTHING`,
      [event.seq.toString(), workspaceId, event.stream_id, event.stream_position],
    );
    const payload = {
      type: shown.type,
      // whole seconds in UTC, as the feed's `at` and the API's datetimes
      timestamp: `${(typeof data.occurredAt === 'string' ? data.occurredAt : new Date().toISOString()).slice(0, 19)}Z`,
      data: shown.data,
    };
    // (The endpoint read table is up to date here: it is applied before the chain in this append.)
    await db.query(
      `INSERT INTO webhook_deliveries (delivery_id, webhook_id, workspace_id, seq, type, payload)
       SELECT gen_random_uuid(), webhook_id, workspace_id, $2, $3, $4
       FROM webhooks
       WHERE workspace_id = $1 AND enabled AND (events IS NULL OR $3 = ANY(events))
       ON CONFLICT (webhook_id, seq) DO NOTHING`,
      [workspaceId, event.seq.toString(), shown.type, JSON.stringify(payload)],
    );
  }
};

/**
 * Starts the feed on a database whose events predate it: the chained events with a public face,
 * in chain order (no deliveries: endpoints did not exist before). Run under the migration lock.
 */
export const indexExistingFeed = async (db: Db) => {
  const started = await db.query("SELECT 1 FROM flipbook_meta WHERE key = 'event_feed_started'");
  if (started.rows.length > 0) return;
  await db.query(
    `INSERT INTO event_feed (seq, workspace_id, stream_id, stream_position)
     SELECT c.seq, (m.message_data->>'workspaceId')::uuid, c.stream_id, c.stream_position
     FROM audit_chain c
     JOIN emt_messages m ON m.stream_id = c.stream_id AND m.stream_position = c.stream_position
     WHERE m.message_type = ANY($1) AND m.message_data->>'workspaceId' IS NOT NULL
     ON CONFLICT (seq) DO NOTHING`,
    [PUBLISHED],
  );
  await db.query(
    `INSERT INTO flipbook_meta (key, value) VALUES ('event_feed_started', now()::text)
     ON CONFLICT (key) DO NOTHING`,
  );
};

export type FeedRow = {
  seq: string;
  id: string;
  type: string;
  data: Record<string, unknown>;
};

/** Up to `limit` of the workspace's public events after `afterSeq`, in order. */
export const feedPage = async (db: Db, workspaceId: string, afterSeq: string, limit: number) =>
  (
    await db.query<FeedRow>(
      `SELECT f.seq::text AS seq, m.message_id AS id, m.message_type AS type,
         m.message_data AS data
       FROM event_feed f
       JOIN emt_messages m ON m.stream_id = f.stream_id AND m.stream_position = f.stream_position
         AND NOT m.is_archived
       WHERE f.workspace_id = $1 AND f.seq > $2::bigint
       ORDER BY f.seq LIMIT $3`,
      [workspaceId, afterSeq, limit],
    )
  ).rows;

/** The feed's last seq overall (a cursor for "from now on"). */
export const feedHead = async (db: Db, workspaceId: string) =>
  (
    await db.query<{ seq: string }>(
      'SELECT coalesce(max(seq), 0)::text AS seq FROM event_feed WHERE workspace_id = $1',
      [workspaceId],
    )
  ).rows[0]?.seq ?? '0';
