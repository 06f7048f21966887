// `flipbook webhook`: a workspace's webhooks over the API (like publish, with the login's key):
// add (the secret is printed once), list, remove, enable again, send a test, see deliveries.
import type { Command } from 'commander';
import { PUBLIC_EVENT_TYPES } from '../../../../src/domain/publicEventTypes.ts';
import { apiClient } from '../client/apiClient.ts';
import { CliError, EXIT } from '../client/cliErrors.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { printJson, printTable, safe } from '../output.ts';

const eventsFlag = (raw: string | undefined) => {
  if (raw === undefined) return undefined;
  const events = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = events.find((e) => !(PUBLIC_EVENT_TYPES as readonly string[]).includes(e));
  if (events.length === 0 || unknown !== undefined) {
    throw new CliError(
      EXIT.usage,
      `--events: ${unknown ? `unknown type "${unknown}"; ` : ''}a comma-separated list of ${PUBLIC_EVENT_TYPES.join(', ')}`,
    );
  }
  return events;
};

export const registerWebhook = (program: Command) => {
  const webhook = program
    .command('webhook')
    .description(
      "the workspace's webhooks: signed POSTs of its events to a URL (docs/webhooks.md)",
    );

  withClientOptions(
    webhook
      .command('add <url>')
      .description('add a webhook; prints its signing secret, once')
      .option('--events <types>', 'only these event types, comma-separated (default: every type)')
      .option('--description <text>', 'what it is for'),
  ).action(async (url: string, flags: ClientFlags & { events?: string; description?: string }) => {
    const events = eventsFlag(flags.events);
    const made = await apiClient(await connectionFrom(flags)).webhooks.add({
      url,
      ...(events ? { events } : {}),
      ...(flags.description !== undefined ? { description: flags.description } : {}),
    });
    if (flags.json) return printJson(made);
    process.stdout.write(
      `Webhook ${made.id} added for ${safe(made.url)} (${made.events ? made.events.join(', ') : 'every event'}).\n` +
        `Its signing secret, shown this once: keep it where the receiver can read it.\n${made.secret}\n`,
    );
  });

  withClientOptions(webhook.command('list').description("list the workspace's webhooks")).action(
    async (flags: ClientFlags) => {
      const listed = await apiClient(await connectionFrom(flags)).webhooks.list();
      if (flags.json) return printJson(listed);
      const { webhooks } = listed;
      printTable(
        webhooks.map((w) => ({
          id: w.id,
          url: w.url,
          events: w.events ? w.events.join(',') : '*',
          status: w.disabled_reason ? `${w.status} (${w.disabled_reason})` : w.status,
          created: w.created_at,
        })),
        ['id', 'url', 'events', 'status', 'created'],
      );
    },
  );

  withClientOptions(
    webhook.command('remove <id>').description('remove a webhook: nothing more is sent to it'),
  ).action(async (id: string, flags: ClientFlags) => {
    const removed = await apiClient(await connectionFrom(flags)).webhooks.remove(id);
    if (flags.json) return printJson(removed);
    process.stdout.write(`Webhook ${removed.id} removed.\n`);
  });

  withClientOptions(
    webhook
      .command('enable <id>')
      .description('turn a webhook the service disabled (410, or failing for a day) back on'),
  ).action(async (id: string, flags: ClientFlags) => {
    const enabled = await apiClient(await connectionFrom(flags)).webhooks.enable(id);
    if (flags.json) return printJson(enabled);
    process.stdout.write(`Webhook ${enabled.id} is enabled.\n`);
  });

  withClientOptions(
    webhook.command('test <id>').description('send it a webhook.test delivery'),
  ).action(async (id: string, flags: ClientFlags) => {
    const queued = await apiClient(await connectionFrom(flags)).webhooks.test(id);
    if (flags.json) return printJson(queued);
    process.stdout.write(
      `Test delivery ${queued.delivery_id} queued: \`flipbook webhook deliveries ${id}\` shows how it went.\n`,
    );
  });

  withClientOptions(
    webhook.command('deliveries <id>').description("a webhook's latest deliveries, newest first"),
  ).action(async (id: string, flags: ClientFlags) => {
    const listed = await apiClient(await connectionFrom(flags)).webhooks.deliveries(id);
    if (flags.json) return printJson(listed);
    const { deliveries } = listed;
    if (deliveries.length === 0) {
      process.stdout.write('No deliveries yet.\n');
      return;
    }
    printTable(
      deliveries.map((d) => ({
        id: d.id,
        type: d.type,
        status: d.status,
        attempts: String(d.attempts),
        last: d.last_status !== null ? String(d.last_status) : (d.last_error ?? ''),
        when: d.delivered_at ?? d.next_attempt_at ?? d.last_attempt_at ?? d.created_at,
      })),
      ['id', 'type', 'status', 'attempts', 'last', 'when'],
    );
  });
};
