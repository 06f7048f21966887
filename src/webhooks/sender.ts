// Sends the webhooks' outbox (src/state/webhookDeliveries.ts): every daemon runs one. It takes
// due deliveries in small batches (leased, so several daemons never send one at the same time),
// signs each with the endpoint's secret (Standard Webhooks, with the `standardwebhooks` package:
// the reference implementation, so receivers can verify with any of its ports), POSTs it with a
// 10 s limit and no redirects, through a connection that refuses private addresses unless the
// operator allowed them, and records the outcome. Attempts run side by side (at most SLOTS), so
// a slow receiver holds one slot for at most 10 s and never the others, nor processing.

import { randomInt } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import type { Clock } from '../app/clock.ts';
import { runWorkspaceCommand } from '../app/commands.ts';
import { SYSTEM } from '../app/eventContext.ts';
import { afterAttempt } from '../domain/webhookRetry.ts';
import type { Logger } from '../log.ts';
import { webhookDeliveries } from '../metrics.ts';
import { attemptsUnderWay, pollLoop } from '../senderLoop.ts';
import {
  type ClaimedDelivery,
  cancelPending,
  claimDeliveries,
  dueDeliveries,
  recordAttempt,
} from '../state/webhookDeliveries.ts';
import type { Store } from '../store/store.ts';
import {
  guardedLookup,
  isPrivateAddress,
  literalAddress,
  PrivateAddressRefused,
} from './addressGuard.ts';

const ATTEMPT_TIMEOUT_MS = 10_000;
const LEASE_MS = 60_000;
const SLOTS = 16;
/**
 * At most this many attempts at once per webhook and per workspace (per daemon): a workspace whose
 * receivers hang holds a few slots for 10 s at a time, never all of them, so every other
 * workspace's deliveries go on at once.
 */
const PER_WEBHOOK = 2;
const PER_WORKSPACE = 4;
const TICK_MS = 500;

export type SenderOptions = { allowPrivate: boolean; tickMs?: number };

export const startWebhookSender = (
  store: Store,
  log: Logger,
  clock: Clock,
  options: SenderOptions,
) => {
  const agent = new Agent({
    connect: {
      timeout: ATTEMPT_TIMEOUT_MS,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup as never }),
    },
    headersTimeout: ATTEMPT_TIMEOUT_MS,
    bodyTimeout: ATTEMPT_TIMEOUT_MS,
    keepAliveTimeout: 4_000,
  });
  const inFlight = attemptsUnderWay();
  const busyWebhooks = new Map<string, number>();
  const busyWorkspaces = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string, by: number) => {
    const next = (map.get(key) ?? 0) + by;
    if (next <= 0) map.delete(key);
    else map.set(key, next);
  };

  const attempt = async (delivery: ClaimedDelivery) => {
    const now = clock.now();
    if (delivery.url === null || delivery.secret === null) {
      webhookDeliveries.inc({ outcome: 'cancelled' });
      await recordAttempt(store.db, delivery.delivery_id, now, {
        kind: 'cancelled',
        error: 'The webhook was removed or disabled',
      });
      return;
    }
    const body = JSON.stringify(delivery.payload);
    const answer = await send(delivery, body, now);
    const decision = afterAttempt(delivery.attempts, answer, now, randomInt(1_000_000) / 1_000_000);
    const status: number | null = 'status' in answer ? (answer.status ?? null) : null;
    const error: string = 'error' in answer && answer.error ? answer.error : `HTTP ${status}`;
    const done = clock.now();
    webhookDeliveries.inc({
      outcome:
        decision.kind === 'delivered'
          ? 'delivered'
          : decision.kind === 'retry'
            ? 'retry'
            : 'failed',
    });
    switch (decision.kind) {
      case 'delivered':
        await recordAttempt(store.db, delivery.delivery_id, done, {
          kind: 'delivered',
          status: status as number,
        });
        return;
      case 'retry':
        await recordAttempt(store.db, delivery.delivery_id, done, {
          kind: 'retry',
          status,
          error,
          nextAt: new Date(done.getTime() + decision.afterMs),
        });
        return;
      case 'gone':
      case 'give-up': {
        await recordAttempt(store.db, delivery.delivery_id, done, {
          kind: 'failed',
          status,
          error,
        });
        const reason = decision.kind === 'gone' ? 'gone' : 'failing';
        log.warn(
          { webhookId: delivery.webhook_id, reason, status, error },
          'webhook disabled: its deliveries are refused or keep failing',
        );
        await runWorkspaceCommand(
          store,
          delivery.workspace_id,
          { type: 'DisableWebhook', data: { webhookId: delivery.webhook_id, reason, now: done } },
          SYSTEM,
        ).catch((e) => log.error({ err: e }, 'could not disable a webhook'));
        await cancelPending(store.db, delivery.webhook_id, 'The webhook was disabled');
        return;
      }
    }
  };

  const send = async (delivery: ClaimedDelivery, body: string, now: Date) => {
    try {
      const url = new URL(delivery.url as string);
      // A literal address makes no lookup: checked here instead.
      const literal = literalAddress(url);
      if (!options.allowPrivate && literal !== null && isPrivateAddress(literal)) {
        throw new PrivateAddressRefused(url.hostname, literal);
      }
      const id = `msg_${delivery.delivery_id.replaceAll('-', '')}`;
      const signature = new Webhook(delivery.secret as string).sign(id, now, body);
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'flipbook-webhooks/1',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      // The answer's body is not read beyond what the connection needs: dropped.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const retryAfter = res.headers['retry-after'];
      return {
        status: res.statusCode,
        retryAfter: Array.isArray(retryAfter) ? (retryAfter[0] ?? null) : (retryAfter ?? null),
      };
    } catch (error) {
      return { error: describe(error) };
    }
  };

  const tick = async () => {
    const free = SLOTS - inFlight.size;
    if (free <= 0) return;
    const now = clock.now();
    // The oldest due first, but within each webhook's and workspace's share of the slots.
    const chosen: string[] = [];
    const webhooks = new Map(busyWebhooks);
    const workspaces = new Map(busyWorkspaces);
    for (const due of await dueDeliveries(store.db, now, 200, PER_WEBHOOK)) {
      if (chosen.length >= free) break;
      if ((webhooks.get(due.webhook_id) ?? 0) >= PER_WEBHOOK) continue;
      if ((workspaces.get(due.workspace_id) ?? 0) >= PER_WORKSPACE) continue;
      bump(webhooks, due.webhook_id, 1);
      bump(workspaces, due.workspace_id, 1);
      chosen.push(due.delivery_id);
    }
    if (chosen.length === 0) return;
    const claimed = await claimDeliveries(
      store.db,
      chosen,
      now,
      new Date(now.getTime() + LEASE_MS),
    );
    for (const delivery of claimed) {
      bump(busyWebhooks, delivery.webhook_id, 1);
      bump(busyWorkspaces, delivery.workspace_id, 1);
      inFlight.add(
        attempt(delivery)
          .catch((error) =>
            log.error({ err: error, deliveryId: delivery.delivery_id }, 'webhook delivery failed'),
          )
          .finally(() => {
            bump(busyWebhooks, delivery.webhook_id, -1);
            bump(busyWorkspaces, delivery.workspace_id, -1);
          }),
      );
    }
  };

  const poll = pollLoop(tick, options.tickMs ?? TICK_MS, (error) =>
    log.warn({ err: error }, 'webhook sender: could not read the outbox'),
  );

  return {
    /** Stops taking deliveries; attempts under way finish (at most 10 s). */
    stop: async () => {
      poll.stop();
      await inFlight.settled();
      await agent.close().catch(() => {});
    },
  };
};

/** A failed attempt in a few words for the deliveries list (never a stack). */
const describe = (error: unknown): string => {
  if (error instanceof PrivateAddressRefused) return error.message;
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof PrivateAddressRefused) return cause.message;
  const e = error as { name?: string; code?: string; message?: string };
  if (e?.name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT') {
    return 'No answer within 10 s';
  }
  if (e?.code === 'ECONNREFUSED') return 'Connection refused';
  if (e?.code === 'ENOTFOUND') return 'The host name does not resolve';
  return `${e?.code ?? e?.name ?? 'Error'}: ${e?.message ?? String(error)}`.slice(0, 300);
};
