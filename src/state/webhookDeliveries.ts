// The webhooks' outbox (created with the event feed, ./eventFeed.ts, which fills it in the append's
// transaction) and the secrets that sign its deliveries. A delivery is taken by one sender at a
// time (FOR UPDATE SKIP LOCKED, then a lease): several daemons on one database never send the
// same delivery at once, and a sender that dies mid-attempt leaves it to another once its lease
// runs out. Times come from the caller's clock (tests move it).
import type { Db } from '../readTables/readTable.ts';
import { utc } from '../readTables/sql.ts';

export const saveWebhookSecret = (db: Db, webhookId: string, secret: string) =>
  db.query(
    `INSERT INTO webhook_secrets (webhook_id, secret) VALUES ($1, $2)
     ON CONFLICT (webhook_id) DO NOTHING`,
    [webhookId, secret],
  );

export const dropWebhookSecret = (db: Db, webhookId: string) =>
  db.query('DELETE FROM webhook_secrets WHERE webhook_id = $1', [webhookId]);

export type ClaimedDelivery = {
  delivery_id: string;
  webhook_id: string;
  workspace_id: string;
  type: string;
  payload: { type: string; timestamp: string; data: unknown };
  attempts: number;
  /** null: the endpoint was removed or disabled since it was queued */
  url: string | null;
  secret: string | null;
};

export type DueDelivery = { delivery_id: string; webhook_id: string; workspace_id: string };

/**
 * Deliveries due at `now` that nobody holds, oldest first, but at most `perWebhook` of each
 * webhook: a webhook with thousands queued cannot crowd every other one out of the candidates.
 */
export const dueDeliveries = async (db: Db, now: Date, limit: number, perWebhook: number) =>
  (
    await db.query<DueDelivery>(
      `SELECT delivery_id, webhook_id, workspace_id FROM (
         SELECT delivery_id, webhook_id, workspace_id, next_at,
           row_number() OVER (PARTITION BY webhook_id ORDER BY next_at) AS n
         FROM webhook_deliveries
         WHERE status = 'pending' AND next_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
       ) due
       WHERE n <= $3 ORDER BY next_at LIMIT $2`,
      [now, limit, perWebhook],
    )
  ).rows;

/**
 * Leases the chosen deliveries to the caller until `leaseUntil`: those still due and not taken
 * by another sender meanwhile (SKIP LOCKED, then the lease), each attempt counted.
 */
export const claimDeliveries = async (db: Db, ids: string[], now: Date, leaseUntil: Date) =>
  (
    await db.query<ClaimedDelivery>(
      `WITH due AS (
         SELECT delivery_id FROM webhook_deliveries
         WHERE delivery_id = ANY($3::uuid[]) AND status = 'pending' AND next_at <= $1
           AND (lease_until IS NULL OR lease_until <= $1)
         FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries d SET lease_until = $2, attempts = d.attempts + 1,
         last_attempt_at = $1
       FROM due WHERE d.delivery_id = due.delivery_id
       RETURNING d.delivery_id, d.webhook_id, d.workspace_id, d.type, d.payload, d.attempts,
         (SELECT url FROM webhooks w WHERE w.webhook_id = d.webhook_id AND w.enabled) AS url,
         (SELECT secret FROM webhook_secrets s WHERE s.webhook_id = d.webhook_id) AS secret`,
      [now, leaseUntil, ids],
    )
  ).rows;

export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string; nextAt: Date }
  | { kind: 'failed'; status: number | null; error: string }
  | { kind: 'cancelled'; error: string };

export const recordAttempt = (db: Db, deliveryId: string, now: Date, outcome: AttemptOutcome) =>
  db.query(
    `UPDATE webhook_deliveries SET
       status = $3,
       last_status = $4,
       last_error = $5,
       next_at = coalesce($6, next_at),
       delivered_at = CASE WHEN $3 = 'delivered' THEN $2 ELSE delivered_at END,
       lease_until = NULL
     WHERE delivery_id = $1`,
    [
      deliveryId,
      now,
      outcome.kind === 'retry' ? 'pending' : outcome.kind,
      'status' in outcome ? outcome.status : null,
      'error' in outcome ? outcome.error.slice(0, 500) : null,
      outcome.kind === 'retry' ? outcome.nextAt : null,
    ],
  );

/** A delivery of `type` for one endpoint that is not an event (`flipbook webhook test`). */
export const queueTestDelivery = async (
  db: Db,
  webhook: { id: string; workspaceId: string },
  deliveryId: string,
  payload: { type: string; timestamp: string; data: unknown },
  now: Date,
) =>
  db.query(
    `INSERT INTO webhook_deliveries (delivery_id, webhook_id, workspace_id, seq, type, payload,
       next_at, created_at)
     VALUES ($1, $2, $3, NULL, $4, $5, $6, $6)`,
    [deliveryId, webhook.id, webhook.workspaceId, payload.type, JSON.stringify(payload), now],
  );

export type DeliveryRow = {
  id: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
};

/** An endpoint's latest deliveries, newest first. */
export const listDeliveries = async (db: Db, webhookId: string, limit: number) =>
  (
    await db.query<DeliveryRow>(
      `SELECT delivery_id AS id, type, status, attempts, last_status, last_error,
         ${utc('created_at')}, ${utc('last_attempt_at')},
         CASE WHEN status = 'pending' THEN ${utc('next_at').replace(' AS next_at', '')} END
           AS next_attempt_at,
         ${utc('delivered_at')}
       FROM webhook_deliveries WHERE webhook_id = $1
       ORDER BY created_at DESC, delivery_id DESC LIMIT $2`,
      [webhookId, limit],
    )
  ).rows;

/** What is still queued for an endpoint ends with it (removed, or disabled by the service). */
export const cancelPending = (db: Db, webhookId: string, reason: string) =>
  db.query(
    `UPDATE webhook_deliveries SET status = 'cancelled', last_error = $2, lease_until = NULL
     WHERE webhook_id = $1 AND status = 'pending'`,
    [webhookId, reason],
  );
