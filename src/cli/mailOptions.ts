// `serve`'s mail flags (docs/deploy.md, "Mail"). The server's URL may carry a password, so it is
// also read from the environment, which the machine's other users cannot list as they can a
// process's arguments; a flag, when given, wins. Without a URL the daemon sends no mail.
import type { Command } from 'commander';
import { CliError, EXIT } from '../../packages/cli/src/client/cliErrors.ts';
import {
  MailSettingError,
  type MailSettings,
  parseMailFrom,
  parseSmtpUrl,
} from '../mail/mailSettings.ts';

export const SMTP_URL_ENV = 'FLIPBOOK_SMTP_URL';

export type MailFlags = { smtpUrl?: string; mailFrom?: string };

export const withMailOptions = (command: Command) =>
  command
    .option(
      '--smtp-url <url>',
      `the mail server, smtps://user:password@host:465 or smtp://... (STARTTLS); default $${SMTP_URL_ENV}`,
    )
    .option('--mail-from <address>', 'who mail comes from: "Flipbook <flipbook@example.com>"');

/** The settings the flags and the environment name, or null when no mail server is given. */
export const mailSettingsOf = (
  flags: MailFlags,
  env: Record<string, string | undefined>,
): MailSettings | null => {
  const fromEnv = env[SMTP_URL_ENV]?.trim() || undefined;
  const url = flags.smtpUrl ?? fromEnv;
  const where = flags.smtpUrl !== undefined ? '--smtp-url' : `$${SMTP_URL_ENV}`;
  try {
    if (url === undefined) {
      if (flags.mailFrom !== undefined) {
        throw new MailSettingError(
          `--mail-from needs a mail server: --smtp-url or $${SMTP_URL_ENV}`,
        );
      }
      return null;
    }
    const smtp = parseSmtpUrl(url, where);
    if (flags.mailFrom === undefined) {
      throw new MailSettingError(
        `${where} needs --mail-from, the address mail comes from ("Flipbook <flipbook@example.com>")`,
      );
    }
    return { smtp, from: parseMailFrom(flags.mailFrom) };
  } catch (error) {
    if (error instanceof MailSettingError) throw new CliError(EXIT.usage, error.message);
    throw error;
  }
};
