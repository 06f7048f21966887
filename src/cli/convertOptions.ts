// `serve` and `worker`: how uploads that are not PDFs are converted (issue 45;
// docs/processing.md, "Office documents and images"). Office documents need LibreOffice's
// `soffice` on the PATH: without it (or with --no-convert) they are refused at upload, in words,
// and a worker fails any it is given the same way. Images need nothing beyond sharp.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Command } from 'commander';
import { type ConvertOptions, DEFAULT_CONVERT } from '../worker/processDeps.ts';
import { flagInteger } from './flagInteger.ts';

export type ConvertFlags = { convert: boolean; convertTimeout: string };

export const withConvertOptions = (command: Command) =>
  command
    .option(
      '--convert-timeout <seconds>',
      'longest an office document may take to convert to PDF (LibreOffice is stopped after it)',
      String(DEFAULT_CONVERT.timeoutMs / 1000),
    )
    .option('--no-convert', 'take no office documents (PDFs and images only)');

/**
 * The options, and whether office documents were asked for on a machine without LibreOffice
 * (the caller says so in its log: the service runs, refusing them).
 */
export const convertOptionsOf = (
  flags: ConvertFlags,
  env: NodeJS.ProcessEnv = process.env,
): { convert: ConvertOptions; missing: boolean } => {
  const timeoutMs = flagInteger('--convert-timeout', flags.convertTimeout, 1, 3_600) * 1000;
  const installed = onPath('soffice', env.PATH ?? '');
  return {
    convert: { ...DEFAULT_CONVERT, timeoutMs, office: flags.convert && installed },
    missing: flags.convert && !installed,
  };
};

const onPath = (name: string, path: string) =>
  path
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
