// Webhook endpoints: add (Team plan; the secret shown once), list, remove, enable again after the
// service disabled one, send a test delivery, and list an endpoint's deliveries. Each change is an
// event on the workspace's stream with its actor; the secret is in no event (its own table).
import { randomBytes, randomUUID } from 'node:crypto';
import { InvalidInput, NotFound, RuleBroken } from '../domain/errors.ts';
import type { PublicEventType } from '../domain/publicEventTypes.ts';
import { isUuid } from '../domain/uuid.ts';
import { checkWebhookUrl } from '../domain/workspace/webhooks.ts';
import { findWebhook, listWebhooks, type WebhookRow } from '../readTables/webhooks.ts';
import {
  cancelPending,
  type DeliveryRow,
  dropWebhookSecret,
  listDeliveries,
  queueTestDelivery,
  saveWebhookSecret,
} from '../state/webhookDeliveries.ts';
import type { Store } from '../store/store.ts';
import { privateTarget } from '../webhooks/addressGuard.ts';
import type { Caller } from './caller.ts';
import type { Clock } from './clock.ts';
import { runWorkspaceCommand } from './commands.ts';

export type WebhookDeps = { store: Store; clock: Clock; allowPrivate: boolean };

export const shownWebhook = (row: WebhookRow) => ({
  id: row.id,
  url: row.url,
  // (stored from a request checked against the public types: src/contract/webhooks.ts)
  events: row.events as PublicEventType[] | null,
  description: row.description,
  status: row.enabled ? ('enabled' as const) : ('disabled' as const),
  disabled_reason: (row.disabled_reason as 'gone' | 'failing' | null) ?? null,
  created_at: row.created_at,
});

const webhookOf = async (store: Store, caller: Caller, id: string) => {
  // Another workspace's webhook is as unknown as none (isolation).
  const row = isUuid(id) ? await findWebhook(store.db, caller.workspaceId, id.toLowerCase()) : null;
  if (!row) throw new NotFound(`No webhook with id ${id}`);
  return row;
};

export const addWebhook = async (
  { store, clock, allowPrivate }: WebhookDeps,
  caller: Caller,
  input: { url: string; events?: string[] | undefined; description?: string | undefined },
) => {
  const url = checkWebhookUrl(input.url);
  if (!allowPrivate) {
    const refused = await privateTarget(url);
    if (refused) throw new RuleBroken(refused);
  }
  const webhookId = randomUUID();
  // Standard Webhooks' form: whsec_ and 24 random bytes in base64.
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  await saveWebhookSecret(store.db, webhookId, secret);
  await runWorkspaceCommand(
    store,
    caller.workspaceId,
    {
      type: 'AddWebhook',
      data: {
        webhookId,
        url,
        events: input.events ?? null,
        description: input.description ?? '',
        now: clock.now(),
      },
    },
    caller.metadata,
  ).catch(async (error: unknown) => {
    await dropWebhookSecret(store.db, webhookId);
    throw error;
  });
  return { ...shownWebhook(await webhookOf(store, caller, webhookId)), secret };
};

export const listWorkspaceWebhooks = async (store: Store, caller: Caller) => ({
  webhooks: (await listWebhooks(store.db, caller.workspaceId)).map(shownWebhook),
});

export const getWebhook = async (store: Store, caller: Caller, id: string) =>
  shownWebhook(await webhookOf(store, caller, id));

/** A person's command on one of the workspace's webhooks (another workspace's is not found). */
const onWebhook = async (
  { store, clock }: WebhookDeps,
  caller: Caller,
  id: string,
  type: 'RemoveWebhook' | 'EnableWebhook',
) => {
  const row = await webhookOf(store, caller, id);
  const command = { type, data: { webhookId: row.id, now: clock.now() } };
  await runWorkspaceCommand(store, caller.workspaceId, command, caller.metadata);
  return row;
};

export const removeWebhook = async (deps: WebhookDeps, caller: Caller, id: string) => {
  const row = await onWebhook(deps, caller, id, 'RemoveWebhook');
  await cancelPending(deps.store.db, row.id, 'The webhook was removed');
  await dropWebhookSecret(deps.store.db, row.id);
};

export const enableWebhook = async (deps: WebhookDeps, caller: Caller, id: string) => {
  const row = await onWebhook(deps, caller, id, 'EnableWebhook');
  return shownWebhook(await webhookOf(deps.store, caller, row.id));
};

/** Queues a `webhook.test` delivery to the endpoint; it is sent like any other. */
export const testWebhook = async ({ store, clock }: WebhookDeps, caller: Caller, id: string) => {
  const row = await webhookOf(store, caller, id);
  if (!row.enabled) {
    throw new InvalidInput('This webhook is disabled: enable it before testing it');
  }
  const now = clock.now();
  const deliveryId = randomUUID();
  await queueTestDelivery(
    store.db,
    { id: row.id, workspaceId: caller.workspaceId },
    deliveryId,
    {
      type: 'webhook.test',
      timestamp: `${now.toISOString().slice(0, 19)}Z`,
      data: { webhook_id: row.id },
    },
    now,
  );
  return { delivery_id: deliveryId };
};

export const webhookDeliveries = async (
  store: Store,
  caller: Caller,
  id: string,
): Promise<{ deliveries: DeliveryRow[] }> => {
  const row = await webhookOf(store, caller, id);
  return { deliveries: await listDeliveries(store.db, row.id, 50) };
};
