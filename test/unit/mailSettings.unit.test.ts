// The mail settings (src/mail/mailSettings.ts, src/cli/mailOptions.ts): the SMTP URL and the
// sender's address parsed, every bad value a usage error in words that never repeats a password,
// the environment's URL used when no flag gives one; and the retry schedule (src/domain/mailRetry.ts).
import { describe, expect, it } from 'vitest';
import { CliError, EXIT } from '../../packages/cli/src/client/cliErrors.ts';
import { mailSettingsOf, SMTP_URL_ENV } from '../../src/cli/mailOptions.ts';
import { afterMailFailure, MAIL_GIVE_UP_MS } from '../../src/domain/mailRetry.ts';
import {
  describeSmtpServer,
  formatMailAddress,
  isMailAddress,
  parseMailFrom,
  parseSmtpUrl,
} from '../../src/mail/mailSettings.ts';

const usageError = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    return (error as CliError).message;
  }
  throw new Error('no error');
};

describe('the SMTP URL', () => {
  it('reads scheme, host, port and credentials, with the ports each scheme defaults to', () => {
    expect(parseSmtpUrl('smtps://mailer:s3cret@mail.example.com:2465')).toEqual({
      secure: true,
      host: 'mail.example.com',
      port: 2465,
      auth: { user: 'mailer', password: 's3cret' },
    });
    expect(parseSmtpUrl('smtp://relay.internal')).toEqual({
      secure: false,
      host: 'relay.internal',
      port: 587,
      auth: null,
    });
    expect(parseSmtpUrl('smtps://relay.internal/').port).toBe(465);
    expect(parseSmtpUrl('smtp://[::1]:25').host).toBe('::1');
    // escaped characters in the user and the password
    expect(parseSmtpUrl('smtp://me%40example.com:p%3Ass%40w@h:25').auth).toEqual({
      user: 'me@example.com',
      password: 'p:ss@w',
    });
  });

  it('describes the server without its password', () => {
    const server = parseSmtpUrl('smtps://me%40example.com:hunter2@mail.example.com');
    expect(describeSmtpServer(server)).toBe('smtps://me%40example.com@mail.example.com:465');
    expect(describeSmtpServer(parseSmtpUrl('smtp://[::1]:25'))).toBe('smtp://[::1]:25');
  });

  it.each([
    ['not a url', /must be a URL like smtps:/],
    ['http://mail.example.com', /must start with smtp:\/\/ .* or smtps:\/\/ .*, got http:\/\//],
    ['smtp://mail.example.com/inbox', /takes no path, query or fragment/],
    ['smtp://mail.example.com?tls=1', /takes no path, query or fragment/],
    ['smtp://mail.example.com:0', /port must be 1 to 65535, got 0/],
    ['smtp://mail.example.com:70000', /must be a URL/],
    ['smtp://user@mail.example.com', /names a user without a password/],
    ['smtp://:pw@mail.example.com', /a password without a user/],
    ['smtp://u:%E0%A4%A@mail.example.com', /bad %-escape/],
  ])('refuses %s in words', (url, message) => {
    expect(
      usageError(() => mailSettingsOf({ smtpUrl: url, mailFrom: 'a@example.com' }, {})),
    ).toMatch(message);
  });

  it('never repeats a password in an error', () => {
    for (const url of [
      'smtp://user:topsecret@mail.example.com/path',
      'smtp://user:topsecret@',
      'ftp://user:topsecret@mail.example.com',
      'smtp://user:topsecret@mail.example.com:0',
    ]) {
      expect(
        usageError(() => mailSettingsOf({ smtpUrl: url, mailFrom: 'a@b.org' }, {})),
      ).not.toContain('topsecret');
    }
  });
});

describe('the sender address', () => {
  it('takes a name and an address, or an address', () => {
    expect(parseMailFrom('Flipbook <flipbook@example.com>')).toEqual({
      name: 'Flipbook',
      address: 'flipbook@example.com',
    });
    expect(parseMailFrom('"Acme Books" <books@acme.example>')).toEqual({
      name: 'Acme Books',
      address: 'books@acme.example',
    });
    expect(parseMailFrom(' <noreply@example.com> ')).toEqual({
      name: '',
      address: 'noreply@example.com',
    });
    expect(parseMailFrom('noreply@bücher.example').address).toBe('noreply@bücher.example');
    expect(formatMailAddress(parseMailFrom('Flipbook <f@example.com>'))).toBe(
      'Flipbook <f@example.com>',
    );
  });

  it.each([
    'flipbook',
    'Flipbook <flipbook>',
    'a@b@example.com',
    'Flipbook <a@example.com',
    'two@example.com, three@example.com',
    `${'x'.repeat(250)}@example.com`,
  ])('refuses %j', (from) => {
    expect(usageError(() => mailSettingsOf({ smtpUrl: 'smtp://h', mailFrom: from }, {}))).toMatch(
      /--mail-from must be an address, or a name and an address/,
    );
  });

  it('refuses a name with a line break or quotes', () => {
    expect(
      usageError(() =>
        mailSettingsOf({ smtpUrl: 'smtp://h', mailFrom: 'A\nBcc: x <a@b.org>' }, {}),
      ),
    ).toMatch(/without quotes, <, > or line breaks/);
  });

  it('is one address, for recipients too', () => {
    expect(isMailAddress('bob@x.org')).toBe(true);
    expect(isMailAddress('bob@x.org\r\nBcc: eve@y.org')).toBe(false);
    expect(isMailAddress('bob@x.org, eve@y.org')).toBe(false);
  });
});

describe('serve’s mail flags and $FLIPBOOK_SMTP_URL', () => {
  it('is no mail without a URL', () => {
    expect(mailSettingsOf({}, {})).toBeNull();
    expect(mailSettingsOf({}, { [SMTP_URL_ENV]: '  ' })).toBeNull();
  });

  it('takes the URL from the environment, and a flag over it', () => {
    const env = { [SMTP_URL_ENV]: 'smtps://env:pw@env.example.com' };
    expect(mailSettingsOf({ mailFrom: 'a@example.com' }, env)?.smtp.host).toBe('env.example.com');
    expect(
      mailSettingsOf({ smtpUrl: 'smtp://flag.example.com', mailFrom: 'a@example.com' }, env)?.smtp
        .host,
    ).toBe('flag.example.com');
    // an error names where the bad value came from
    expect(
      usageError(() =>
        mailSettingsOf({ mailFrom: 'a@example.com' }, { [SMTP_URL_ENV]: 'http://x' }),
      ),
    ).toMatch(/^\$FLIPBOOK_SMTP_URL must start with/);
  });

  it('needs --mail-from with a server, and a server with --mail-from', () => {
    expect(usageError(() => mailSettingsOf({ smtpUrl: 'smtp://h' }, {}))).toMatch(
      /--smtp-url needs --mail-from/,
    );
    expect(usageError(() => mailSettingsOf({ mailFrom: 'a@example.com' }, {}))).toMatch(
      /--mail-from needs a mail server: --smtp-url or \$FLIPBOOK_SMTP_URL/,
    );
  });
});

describe('the retry schedule', () => {
  const queuedAt = new Date('2026-12-01T10:00:00Z');
  const at = (ms: number) => new Date(queuedAt.getTime() + ms);

  it('retries within about 10 s first, then later and later, ±20 %', () => {
    const first = afterMailFailure(1, { now: at(0), queuedAt, expiresAt: null }, 0.5);
    expect(first).toEqual({ kind: 'retry', at: at(10_000) });
    const low = afterMailFailure(1, { now: at(0), queuedAt, expiresAt: null }, 0);
    const high = afterMailFailure(1, { now: at(0), queuedAt, expiresAt: null }, 0.999_999);
    expect(low).toEqual({ kind: 'retry', at: at(8_000) });
    expect(high.kind === 'retry' && high.at.getTime()).toBeCloseTo(at(12_000).getTime(), -1);
    // from the tenth on, every 4 hours
    expect(afterMailFailure(15, { now: at(3_600_000), queuedAt, expiresAt: null }, 0.5)).toEqual({
      kind: 'retry',
      at: at(3_600_000 + 4 * 3_600_000),
    });
  });

  it('tries last at the day’s end, and gives up after it', () => {
    const near = at(MAIL_GIVE_UP_MS - 60_000);
    expect(afterMailFailure(12, { now: near, queuedAt, expiresAt: null }, 0.5)).toEqual({
      kind: 'retry',
      at: at(MAIL_GIVE_UP_MS),
    });
    expect(
      afterMailFailure(13, { now: at(MAIL_GIVE_UP_MS), queuedAt, expiresAt: null }, 0.5),
    ).toEqual({
      kind: 'give-up',
      why: 'a day of retries',
    });
  });

  it('never tries a mail after its expiry', () => {
    const expiresAt = at(60_000);
    expect(afterMailFailure(3, { now: at(30_000), queuedAt, expiresAt }, 0.5)).toEqual({
      kind: 'retry',
      at: expiresAt,
    });
    expect(afterMailFailure(4, { now: expiresAt, queuedAt, expiresAt }, 0.5)).toEqual({
      kind: 'give-up',
      why: 'expired',
    });
  });
});
