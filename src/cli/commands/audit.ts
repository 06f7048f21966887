// `flipbook audit`: the tamper-evident trail for auditors (docs/audit.md).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError, EXIT } from '../../../packages/cli/src/client/cliErrors.ts';
import { printJson, safe } from '../../../packages/cli/src/output.ts';
import type { Checkpoint } from '../../app/audit.ts';
import { type JsonStoreFlags, withJsonStoreOptions } from '../jsonOption.ts';
import { adminNow, type StoreFlags, withStore, withStoreOptions } from '../storeOptions.ts';

export const registerAudit = (program: Command) => {
  const audit = program
    .command('audit')
    .description('verify, checkpoint and read the tamper-evident event log');

  withJsonStoreOptions(
    audit
      .command('verify')
      .description(
        'recompute the hash chain over every event: exit 0 intact, 1 naming the first bad event',
      )
      .option(
        '--checkpoint <file>',
        'also prove that everything this checkpoint covered is still there',
      ),
  ).action(async (flags: JsonStoreFlags & { checkpoint?: string }) => {
    const { parseCheckpoint, verifyChain } = await import('../../app/audit.ts');
    let checkpoint: Checkpoint | undefined;
    if (flags.checkpoint) {
      const text = await readFile(flags.checkpoint, 'utf8').catch((error: Error) => {
        throw new CliError(EXIT.usage, `cannot read ${flags.checkpoint}: ${error.message}`);
      });
      try {
        checkpoint = parseCheckpoint(text);
      } catch (error) {
        throw new CliError(EXIT.usage, `${flags.checkpoint}: ${(error as Error).message}`);
      }
    }
    const result = await withStore(flags, (store) => verifyChain(store, checkpoint), {
      readOnly: true,
      long: true,
    });
    if (flags.json) printJson(result);
    else if (result.intact) {
      process.stdout.write(
        `intact: ${result.events} events, head ${result.head.hash}${result.checkpoint ? ', the checkpoint holds' : ''}\n`,
      );
    } else {
      const { first } = result;
      const where = first.stream
        ? `${first.stream} position ${first.position}${first.seq ? ` (chain link ${first.seq})` : ''}`
        : 'the chain';
      process.stdout.write(`TAMPERED: ${where}: ${first.problem}\n`);
    }
    if (!result.intact) throw new CliError(EXIT.failure, 'the event log is not intact');
  });

  withJsonStoreOptions(
    audit
      .command('log')
      .description("a workspace's trail across its flipbooks and keys, oldest first")
      .requiredOption('--workspace <name>', 'workspace name')
      .option('--since <time>', 'from this ISO 8601 time')
      .option('--until <time>', 'up to this ISO 8601 time')
      .option(
        '--actor <id>',
        "only this actor's events (a key id, an admin name, a worker host:pid)",
      ),
    'print JSON Lines, one event a line',
  ).action(
    async (
      flags: JsonStoreFlags & { workspace: string; since?: string; until?: string; actor?: string },
    ) => {
      const { workspaceTrail } = await import('../../app/eventLog.ts');
      const { requireWorkspace } = await import('../../app/workspaces.ts');
      const since = flags.since === undefined ? null : time('--since', flags.since);
      const until = flags.until === undefined ? null : time('--until', flags.until);
      await withStore(
        flags,
        async (store) => {
          const workspace = await requireWorkspace(store, flags.workspace);
          const trail = workspaceTrail(store, {
            workspaceId: workspace.id,
            since,
            until,
            actor: flags.actor ?? null,
          });
          for await (const event of trail) {
            if (flags.json) {
              process.stdout.write(`${JSON.stringify(event)}\n`);
              continue;
            }
            const { actor, request_id, correlation_id } = event.metadata;
            const who = 'id' in actor ? `${actor.type}:${actor.id}` : actor.type;
            const what = event.stream.replace(/^(flipbook|workspace)-/, '$1 ');
            process.stdout.write(
              `${event.at}\t${what}#${event.position}\t${event.type}\t${safe(who)}\t${safe(story(request_id, correlation_id))}\n`,
            );
          }
        },
        { readOnly: true, long: true },
      );
    },
  );

  withStoreOptions(
    audit
      .command('export')
      .description(
        'every event as stored, in chain order with its hash, as JSON Lines (docs/audit.md)',
      ),
  ).action(async (flags: StoreFlags) => {
    const { exportLog } = await import('../../app/eventLog.ts');
    await withStore(
      flags,
      async (store) => {
        for await (const line of exportLog(store)) {
          // Respect a slow reader (a pipe to a file on a slow disk): wait for the drain.
          if (!process.stdout.write(`${JSON.stringify(line)}\n`)) {
            await new Promise((resolve) => process.stdout.once('drain', resolve));
          }
        }
      },
      { readOnly: true, long: true },
    );
  });

  withStoreOptions(
    audit
      .command('checkpoint')
      .description('print the chain head as a small JSON document to keep outside the database'),
  ).action(async (flags: StoreFlags) => {
    const { cutCheckpoint } = await import('../../app/audit.ts');
    printJson(
      await withStore(flags, (store) => cutCheckpoint(store, adminNow()), {
        readOnly: true,
        long: true,
      }),
    );
  });
};

const time = (flag: string, text: string) => {
  const value = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(value.getTime())) {
    throw new CliError(EXIT.usage, `${flag} must be an ISO 8601 date or date-time, got "${text}"`);
  }
  return value;
};

/** The request behind an event, or (in parentheses) the one whose story it continues. */
const story = (requestId: string | null, correlationId: string | null) =>
  requestId ?? (correlationId ? `(${correlationId})` : '-');
