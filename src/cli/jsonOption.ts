// The admin commands' one way of answering: with --json, the result as a JSON document (for
// scripts); without it, words or a table for a person. One place, so every command says the same
// option the same way and no command forgets a branch.
import type { Command } from 'commander';
import { printJson, printTable } from '../../packages/cli/src/output.ts';
import { type StoreFlags, withStoreOptions } from './storeOptions.ts';

export type JsonFlag = { json?: boolean };
export type JsonStoreFlags = StoreFlags & JsonFlag;

/**
 * A command on the store that prints its result: its own options first, then --json (`words`
 * may name the JSON's fields), then the store's, the order `--help` lists them in.
 */
export const withJsonStoreOptions = (command: Command, words = 'print JSON') =>
  withStoreOptions(command.option('--json', words));

/** The result as JSON with --json, else `line` (and a line break) for a person. */
export const printResult = (flags: JsonFlag, result: unknown, line: string) => {
  if (flags.json) printJson(result);
  else process.stdout.write(`${line}\n`);
};

/** Rows as JSON with --json, else as a table of these columns. */
export const printRows = (flags: JsonFlag, rows: Record<string, unknown>[], columns: string[]) => {
  if (flags.json) printJson(rows);
  else printTable(rows, columns);
};
