// The mail server and the sender's address, as `serve --smtp-url` and `--mail-from` name them:
// parsed and checked here, pure (no package), so the flags' errors are unit-tested and the admin
// command stays light. A message never repeats the URL as given: it may hold a password.

/** Where mail is handed over: `smtps://` is TLS from the first byte, `smtp://` STARTTLS if offered. */
export type SmtpServer = {
  secure: boolean;
  host: string;
  port: number;
  /** both or neither: AUTH needs the two */
  auth: { user: string; password: string } | null;
};

export type MailAddress = { name: string; address: string };

export type MailSettings = { smtp: SmtpServer; from: MailAddress };

/** What the app may ask of mail: whether a server was given (no server, no mail). */
export type MailStatus = { configured: boolean };

/** A setting that cannot be used, said in words (the CLI makes it a usage error). */
export class MailSettingError extends Error {
  override name = 'MailSettingError';
}

const DEFAULT_PORTS = { smtp: 587, smtps: 465 } as const;

/** One address, as the issue asks of readers' too: one @, no spaces, a dot in its domain. */
const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
const CONTROL = /\p{Cc}/u;

/** `smtp[s]://[user:password@]host[:port]`; `where` names the flag or variable it came from. */
export const parseSmtpUrl = (text: string, where = '--smtp-url'): SmtpServer => {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new MailSettingError(
      `${where} must be a URL like smtps://user:password@mail.example.com:465 (not repeated here: it may hold a password)`,
    );
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'smtp' && scheme !== 'smtps') {
    throw new MailSettingError(
      `${where} must start with smtp:// (STARTTLS when offered) or smtps:// (TLS), got ${scheme}://`,
    );
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new MailSettingError(`${where} names no host: ${redactedSmtpUrl(url)}`);
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) {
    throw new MailSettingError(
      `${where} takes no path, query or fragment: ${redactedSmtpUrl(url)}`,
    );
  }
  // new URL refuses a port over 65535; port 0 would be "any", which a client cannot reach.
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[scheme];
  if (port === 0) throw new MailSettingError(`${where} port must be 1 to 65535, got 0`);
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    throw new MailSettingError(
      `${where}: the user or password has a bad %-escape (write @ as %40, : as %3A)`,
    );
  }
  if (user && !password) {
    throw new MailSettingError(`${where} names a user without a password: ${redactedSmtpUrl(url)}`);
  }
  if (!user && password) throw new MailSettingError(`${where} has a password without a user`);
  return { secure: scheme === 'smtps', host, port, auth: user ? { user, password } : null };
};

/** The server for logs and messages: the user kept, the password never. */
export const describeSmtpServer = (smtp: SmtpServer) => {
  const host = smtp.host.includes(':') ? `[${smtp.host}]` : smtp.host;
  const user = smtp.auth ? `${encodeURIComponent(smtp.auth.user)}@` : '';
  return `${smtp.secure ? 'smtps' : 'smtp'}://${user}${host}:${smtp.port}`;
};

const redactedSmtpUrl = (url: URL) => {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href;
};

/** `Name <address>` or a bare `address`. */
export const parseMailFrom = (text: string, where = '--mail-from'): MailAddress => {
  const trimmed = text.trim();
  const named = /^(.*?)\s*<([^<>]*)>$/s.exec(trimmed);
  const name = (named ? (named[1] ?? '') : '').trim().replace(/^"(.*)"$/, '$1');
  const address = (named ? (named[2] ?? '') : trimmed).trim();
  if (!ADDRESS.test(address) || address.length > 254) {
    throw new MailSettingError(
      `${where} must be an address, or a name and an address ("Flipbook <flipbook@example.com>"), got "${text}"`,
    );
  }
  if (CONTROL.test(name) || name.length > 100 || /[<>"]/.test(name)) {
    throw new MailSettingError(
      `${where}: the name must be up to 100 characters, without quotes, <, > or line breaks`,
    );
  }
  return { name, address };
};

/** `Name <address>` as a header would show it. */
export const formatMailAddress = (from: MailAddress) =>
  from.name ? `${from.name} <${from.address}>` : from.address;

/** An address fit to be a mail's one recipient (the outbox checks each before queueing it). */
export const isMailAddress = (text: string) =>
  text.length <= 254 && ADDRESS.test(text) && !CONTROL.test(text);
