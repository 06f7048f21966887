// `flipbook share create` and `edit`'s flags and argument, checked by the server's own rules before
// anything is sent, and the server's refusals said in the command's words: the API names its fields
// (`Invalid expires_at: …, or null`), a person typed --expires.
import {
  linkLabel,
  linkPassword,
  MAX_EXPIRY_YEARS,
} from '../../../src/domain/flipbook/shareLinks.ts';
import { CliError, EXIT } from './client/cliErrors.ts';

const DAY_MS = 86_400_000;

/** What the command calls each field of a share link. */
const FLAG_OF: Record<string, string> = {
  label: 'The label',
  expires_at: '--expires',
  password: '--password-stdin',
  allow_download: '--no-download',
  identify: '--identify',
  terms: '--terms-file',
  allow: '--allow',
  watermark: '--watermark',
  notify: '--notify',
};

/** A refusal of the API (or of the domain's rules) about a field, in the flags' words. */
export const inShareFlagWords = (message: string) =>
  message
    .replace(
      /^Invalid (label|expires_at|password|allow_download|identify|terms|allow|watermark|notify)\b/,
      (_, field: string) => FLAG_OF[field] ?? field,
    )
    .replace(/^(?:an allow entry|allow entry (\d+)) /, (_, n?: string) =>
      n ? `--allow: entry ${n} ` : '--allow: an entry ',
    )
    // What needs an address or mail (422): `watermark and notify need the reader's address: set
    // identify to "email" or "verified_email"`, `identify "verified_email" (a code is mailed)
    // needs mail, …`.
    .replace(
      /\b(identify|watermark|notify|allow)\b(?= (and|need|\(|"))/g,
      (f: string) => FLAG_OF[f] ?? f,
    )
    .replace('--identify "verified_email"', '--identify verified_email')
    .replace(
      /set identify to "email" or "verified_email"$/,
      'add --identify email (or verified_email)',
    )
    .replace(/^label is required$/, 'A label is required (flipbook share create FLIPBOOK_ID LABEL)')
    // The API's way to say "none" is null; the command's is to leave the flag out.
    .replace(/, or null( for (none|anyone))?$/, '');

const usage = (error: unknown): never => {
  throw new CliError(EXIT.usage, inShareFlagWords((error as Error).message));
};

/** The recipient's label: a plain name of at most 200 characters. */
export const flagLabel = (raw: string) => {
  try {
    return linkLabel(raw);
  } catch (error) {
    return usage(error);
  }
};

/**
 * Whether the date a date-time starts with is one the calendar has: JavaScript's Date turns
 * 2027-02-30 into March 2nd without a word (the API refuses it: not a date-time).
 */
const onTheCalendar = (raw: string) => {
  const date = /^\s*(\d{4})-(\d{2})-(\d{2})/.exec(raw);
  if (!date) return true; // another form Date reads; the API judges it
  const [year, month, day] = date.slice(1).map(Number) as [number, number, number];
  const made = new Date(Date.UTC(year, month - 1, day));
  return made.getUTCMonth() === month - 1 && made.getUTCDate() === day;
};

/** `--expires`: a date-time, or a number of days from now; in the future, within 10 years. */
export const flagExpires = (raw: string | undefined, now: Date) => {
  if (raw === undefined) return undefined;
  const days = /^(\d{1,5})d$/.exec(raw.trim());
  const at = days ? new Date(now.getTime() + Number(days[1]) * DAY_MS) : new Date(raw);
  if (Number.isNaN(at.getTime()) || (!days && !onTheCalendar(raw))) {
    throw new CliError(
      EXIT.usage,
      `--expires: a date and time (2027-01-31T17:00:00Z) or a number of days (30d), got "${raw}"`,
    );
  }
  if (at <= now) {
    throw new CliError(EXIT.usage, `--expires: it must be in the future, got "${raw}"`);
  }
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_EXPIRY_YEARS);
  if (at > latest) {
    throw new CliError(
      EXIT.usage,
      `--expires: at most ${MAX_EXPIRY_YEARS} years from now, got "${raw}"`,
    );
  }
  return at.toISOString();
};

/** The password read by `--password-stdin` (its first line). */
export const flagPassword = (raw: string) => {
  try {
    return linkPassword(raw);
  } catch (error) {
    return usage(error);
  }
};
