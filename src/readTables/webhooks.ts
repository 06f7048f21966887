// Read table `webhooks`: a workspace's webhook endpoints as its events describe them (a removed
// one is gone from here; its events stay). The signing secret is not derived from events (it is
// in no event): it lives in `webhook_secrets` (./webhookDeliveries.ts), which replays keep.
import { queryRow, queryRows } from './queryRows.ts';
import { actorOf, type Db, type ReadTable } from './readTable.ts';
import { utc } from './sql.ts';

export const webhooks: ReadTable = {
  table: 'webhooks',
  ddl: `CREATE TABLE IF NOT EXISTS webhooks (
    webhook_id UUID PRIMARY KEY,
    workspace_id UUID NOT NULL,
    url TEXT NOT NULL,
    -- the public event types it receives; null: every type
    events TEXT[],
    description TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    -- why the service disabled it (gone, failing); null while enabled or for a person's choice
    disabled_reason TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    created_by JSONB
  );
  CREATE INDEX IF NOT EXISTS webhooks_workspace ON webhooks (workspace_id)`,
  handles: [
    'WebhookEndpointAdded',
    'WebhookEndpointRemoved',
    'WebhookEndpointDisabled',
    'WebhookEndpointEnabled',
  ],
  apply: async (db, event) => {
    switch (event.type) {
      case 'WebhookEndpointAdded': {
        const d = event.data;
        const actor = actorOf(event);
        await db.query(
          `INSERT INTO webhooks (webhook_id, workspace_id, url, events, description, enabled,
             created_at, created_by)
           VALUES ($1, $2, $3, $4, $5, TRUE, $6, $7) ON CONFLICT (webhook_id) DO NOTHING`,
          [d.webhookId, d.workspaceId, d.url, d.events, d.description, d.occurredAt, actor],
        );
        break;
      }
      case 'WebhookEndpointRemoved':
        await db.query('DELETE FROM webhooks WHERE webhook_id = $1', [event.data.webhookId]);
        break;
      case 'WebhookEndpointDisabled':
        await db.query(
          'UPDATE webhooks SET enabled = FALSE, disabled_reason = $2 WHERE webhook_id = $1',
          [event.data.webhookId, event.data.reason],
        );
        break;
      case 'WebhookEndpointEnabled':
        await db.query(
          'UPDATE webhooks SET enabled = TRUE, disabled_reason = NULL WHERE webhook_id = $1',
          [event.data.webhookId],
        );
        break;
    }
  },
};

export type WebhookRow = {
  id: string;
  workspace_id: string;
  url: string;
  events: string[] | null;
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
};

const COLUMNS = `webhook_id AS id, workspace_id, url, events, description, enabled, disabled_reason,
  ${utc('created_at')}`;

export const listWebhooks = async (db: Db, workspaceId: string) =>
  queryRows<WebhookRow>(
    db,
    `SELECT ${COLUMNS} FROM webhooks WHERE workspace_id = $1 ORDER BY created_at, webhook_id`,
    [workspaceId],
  );

export const findWebhook = async (db: Db, workspaceId: string, webhookId: string) =>
  queryRow<WebhookRow>(
    db,
    `SELECT ${COLUMNS} FROM webhooks WHERE workspace_id = $1 AND webhook_id = $2`,
    [workspaceId, webhookId],
  );
