// What `flipbook share create` and `share edit` ask of a link's readers (issue 44; docs/access.md,
// "Who reads"): --identify, --terms-file, --allow, --watermark and --notify, checked by the
// server's own rules before anything is sent (exit 2, in the flags' words), and turned into the
// API's fields. Absent flags send nothing: the server's default on create, unchanged on edit.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { EditShareLinkBody } from '../../../src/contract/shareLinks.ts';
import {
  IDENTIFY_MODES,
  type IdentifyMode,
  linkTerms,
  MAX_ALLOW,
  MAX_TERMS,
} from '../../../src/domain/flipbook/shareLinks.ts';
import { allowEntry } from '../../../src/domain/readerEmail.ts';
import { CliError, EXIT } from './client/cliErrors.ts';
import { safe } from './output.ts';
import { inShareFlagWords } from './shareFlags.ts';

/** The flags as commander hands them over. */
export type ReaderFlags = {
  identify?: string;
  termsFile?: string;
  /** false: --no-terms (edit); true when not given (commander's default for a lone --no-) */
  terms?: boolean;
  /** every --allow as typed; false: --no-allow (edit) */
  allow?: string[] | false;
  watermark?: boolean;
  notify?: boolean;
};

export type ReaderRules = Pick<
  EditShareLinkBody,
  'identify' | 'terms' | 'allow' | 'watermark' | 'notify'
>;

/** A terms file larger than this cannot hold 20,000 characters of terms, whatever its spaces. */
const MAX_TERMS_BYTES = 1024 * 1024;

const usage = (message: string): never => {
  throw new CliError(EXIT.usage, message);
};

/** In the flags' words: the domain's rules say "Invalid terms", "an allow entry". */
const inFlagWords = (error: unknown): never => usage(inShareFlagWords((error as Error).message));

/** commander's collector: --allow may be given again, each time one or more entries. */
export const collectAllow = (value: string, previous: string[] | false | undefined) => [
  ...(previous || []),
  value,
];

/** `--identify`: none, email or verified_email. */
export const flagIdentify = (text: string): IdentifyMode =>
  IDENTIFY_MODES.find((mode) => mode === text.trim().toLowerCase()) ??
  usage(`--identify must be none, email or verified_email, got "${safe(text)}"`);

/**
 * `--allow`: addresses and domains, comma-separated and/or repeated, each checked as the server
 * checks it; none at all (`--allow ''`) is null: anyone who gives an address.
 */
export const flagAllow = (given: readonly string[]): string[] | null => {
  const entries = given
    .flatMap((value) => value.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length > MAX_ALLOW) {
    usage(`--allow: at most ${MAX_ALLOW} addresses or domains, got ${entries.length}`);
  }
  for (const entry of entries) {
    try {
      allowEntry(entry);
    } catch (error) {
      // The domain's words do not repeat what was typed (they may be logged); ours may.
      const why = (error as Error).message.replace(/^an allow entry /, '');
      usage(`--allow: "${safe(entry)}" ${why}`);
    }
  }
  return entries.length > 0 ? entries : null;
};

/** The text of a terms file: UTF-8 (a BOM dropped); empty is none (null). */
export const flagTerms = (bytes: Uint8Array, name: string): string | null => {
  if (bytes.length > MAX_TERMS_BYTES) {
    usage(`--terms-file: at most ${MAX_TERMS} characters, and ${name} has ${bytes.length} bytes`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return usage(`--terms-file: ${name} is not UTF-8 text`);
  }
  try {
    return linkTerms(text);
  } catch (error) {
    return inFlagWords(error);
  }
};

/** The bytes of --terms-file: a file, or standard input for `-`. */
const readTerms = async (path: string): Promise<Uint8Array> => {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
  return readFile(path).catch((error: NodeJS.ErrnoException) =>
    usage(
      error.code === 'ENOENT'
        ? `--terms-file: no such file: ${path}`
        : error.code === 'EISDIR'
          ? `--terms-file: ${path} is a directory`
          : `--terms-file: cannot read ${path} (${error.code ?? error.message})`,
    ),
  );
};

/**
 * The API's fields for the reader flags given. Creating, what asks nothing is left out, and
 * what needs the reader's address without --identify is refused here rather than by the server
 * (editing, only the server knows what the link asks already).
 */
export const readerRules = async (
  flags: ReaderFlags,
  creating: boolean,
  read: (path: string) => Promise<Uint8Array> = readTerms,
): Promise<ReaderRules> => {
  const rules: ReaderRules = {};
  if (flags.identify !== undefined) rules.identify = flagIdentify(flags.identify);
  if (flags.termsFile !== undefined && flags.terms === false) {
    usage('--terms-file and --no-terms: give one of them');
  }
  if (flags.terms === false) rules.terms = null;
  if (flags.termsFile !== undefined) {
    const name = flags.termsFile === '-' ? 'standard input' : flags.termsFile;
    rules.terms = flagTerms(await read(flags.termsFile), name);
  }
  if (flags.allow !== undefined)
    rules.allow = flags.allow === false ? null : flagAllow(flags.allow);
  if (flags.watermark !== undefined) rules.watermark = flags.watermark;
  if (flags.notify !== undefined) rules.notify = flags.notify;
  if (!creating) return rules;
  if (rules.terms === null) delete rules.terms;
  if (rules.allow === null) delete rules.allow;
  const needs = [
    ...(rules.allow ? ['--allow'] : []),
    ...(rules.watermark ? ['--watermark'] : []),
    ...(rules.notify ? ['--notify'] : []),
  ];
  if ((rules.identify ?? 'none') === 'none' && needs.length > 0) {
    usage(
      `${needs.join(' and ')} need${needs.length === 1 ? 's' : ''} the reader's address: add --identify email (or verified_email)`,
    );
  }
  return rules;
};

/** The reader flags on a command; `editing` adds the ones that clear (--no-terms, --no-allow). */
export const withReaderOptions = (command: Command, editing: boolean) => {
  command
    .option(
      '--identify <mode>',
      'whether readers give their address first: none, email, or verified_email (a code is mailed)',
    )
    .option(
      '--terms-file <path>',
      'terms readers accept first, read from a UTF-8 text file (- for standard input; an empty file: none)',
    );
  if (editing) command.option('--no-terms', 'no terms to accept any more');
  command.option(
    '--allow <entries>',
    'only these readers: addresses and domains (acme.com), comma-separated, repeatable; "" for anyone',
    collectAllow,
  );
  if (editing) command.option('--no-allow', 'anyone who gives an address may read');
  return command
    .option('--watermark', "every page shows the reader's address and the day (needs --identify)")
    .option('--no-watermark', 'no watermark')
    .option('--notify', 'mail the link’s creator when a reader first opens it (needs --identify)')
    .option('--no-notify', 'no mails about its readers');
};
