// `flipbook audit`: the tamper-evident trail for auditors (docs/audit.md).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { type Checkpoint, cutCheckpoint, parseCheckpoint, verifyChain } from '../../app/audit.ts';
import { CliError, EXIT } from '../client/cliErrors.ts';
import { printJson } from '../output.ts';
import { type StoreFlags, withStore, withStoreOptions } from '../storeOptions.ts';

export const registerAudit = (program: Command) => {
  const audit = program
    .command('audit')
    .description('verify, checkpoint and read the tamper-evident event log');

  withStoreOptions(
    audit
      .command('verify')
      .description(
        'recompute the hash chain over every event: exit 0 intact, 1 naming the first bad event',
      )
      .option(
        '--checkpoint <file>',
        'also prove that everything this checkpoint covered is still there',
      )
      .option('--json', 'print JSON'),
  ).action(async (flags: StoreFlags & { checkpoint?: string; json?: boolean }) => {
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
    const result = await withStore(flags, (store) => verifyChain(store, checkpoint));
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

  withStoreOptions(
    audit
      .command('checkpoint')
      .description('print the chain head as a small JSON document to keep outside the database'),
  ).action(async (flags: StoreFlags) => {
    printJson(await withStore(flags, (store) => cutCheckpoint(store)));
  });
};
