// Mail where only a process shows it: a real daemon with a mail server from $FLIPBOOK_SMTP_URL
// (and a password) that is down, a mail queued and a reader's code asked for at a share link
// (issue 44), the daemon killed with kill -9, the server up, the daemon started again: each mail
// arrives exactly once, the code still lets the reader in, and neither daemon's logs hold the
// password, the reader's address, the code or anything of the mails' contents. And serve's mail flags refused in words, exit 2.
// The outbox and the sender's rules are test/int/mail.int.test.ts's, in process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueMail } from '../../src/state/mailOutbox.ts';
import { client, createFlipbook, pdf, SMALL_PDF } from '../support/apiHelpers.ts';
import { flipbook, startDaemon } from '../support/cli.ts';
import { freshDatabase } from '../support/databases.ts';
import { metricsOf, seriesValue } from '../support/metricsText.ts';
import { newShareLink } from '../support/readerAccess.ts';
import { closedPort, type SmtpServerUnderTest, startSmtpServer } from '../support/smtpServer.ts';
import { waitFor } from '../support/waitFor.ts';

const PASSWORD = 'Sup3r-s3cret-pw';
const SUBJECT = 'Confidential: board pack opened';
const BODY = 'Alice Example read the board pack for 12 minutes.';
const RECIPIENT = 'owner@example.org';
const READER = 'reader.under.test@example.net';
const logsMustNotHold: string[] = [];

describe('mail across a kill -9 (a real daemon, a real SMTP server)', () => {
  let dir: string;
  let databaseUrl: string;
  let pool: pg.Pool;
  let smtp: SmtpServerUnderTest | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mail-e2e-'));
    databaseUrl = await freshDatabase();
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });
  afterAll(async () => {
    await smtp?.close();
    await pool?.end();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends a mail queued while the server was down exactly once after the restart', {
    timeout: 180_000,
  }, async () => {
    const port = await closedPort();
    const clockFile = join(dir, 'clock');
    await writeFile(clockFile, '0');
    const args = [
      '--database-url',
      databaseUrl,
      '--blob-dir',
      join(dir, 'blobs'),
      '--workers',
      '0',
      '--rate-limit',
      '0',
      '--mail-from',
      'Flipbook <flipbook@example.com>',
    ];
    const env = {
      FLIPBOOK_SMTP_URL: `smtp://mailer:${PASSWORD}@127.0.0.1:${port}`,
      FLIPBOOK_TEST_CLOCK_FILE: clockFile,
    };
    const first = await startDaemon(args, env);
    const ready = first
      .logs()
      .split('\n')
      .find((line) => line.includes('"flipbook ready on'));
    expect(JSON.parse(ready ?? '{}').mail).toBe(`smtp://mailer@127.0.0.1:${port}`);
    const id = await queueMail(
      pool,
      { to: RECIPIENT, subject: SUBJECT, text: BODY, kind: 'link_read', ref: 'link-42' },
      new Date(),
    );
    // A reader asks for a code at a link that proves addresses: queued, the server down.
    const store = ['--database-url', databaseUrl];
    expect((await flipbook(['workspace', 'create', 'acme', '--plan', 'team', ...store])).code).toBe(
      0,
    );
    const key = JSON.parse(
      (await flipbook(['key', 'create', '--workspace', 'acme', '--json', ...store])).stdout,
    ).key as string;
    const c = client(`${first.url}/api/v1`, key);
    const book = await createFlipbook(c, { visibility: 'links' }, pdf(SMALL_PDF));
    const link = await newShareLink(c, book.flipbookId, {
      label: 'Board',
      identify: 'verified_email',
    });
    const asked = await fetch(link.url as string, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ step: 'email', email: READER }).toString(),
    });
    expect(asked.status).toBe(303);
    const waiting = (asked.headers.get('set-cookie') ?? '').split(';')[0] as string;
    // The daemon tried, found the server down, and scheduled a retry.
    await waitFor('the first attempt refused', async () => {
      const { rows } = await pool.query(
        'SELECT attempts, last_error, lease_until FROM mail_outbox WHERE mail_id = $1',
        [id],
      );
      const row = rows[0];
      return row?.attempts >= 1 && row.lease_until === null && row.last_error ? row : undefined;
    });
    // The metrics say mail is not going out: one queued, waiting, an attempt to retry.
    const before = await metricsOf(first.url);
    expect(seriesValue(before, 'flipbook_mail_messages{state="queued"}')).toBe(2);
    expect(seriesValue(before, 'flipbook_mail_oldest_queued_seconds')).toBeGreaterThanOrEqual(0);
    expect(seriesValue(before, 'flipbook_mail_attempts_total{outcome="retry"}')).toBeGreaterThan(0);
    first.process.kill('SIGKILL');
    await new Promise((r) => first.process.once('exit', r));
    const killedAt = Date.now();

    smtp = await startSmtpServer({ port, auth: { user: 'mailer', password: PASSWORD } });
    // Four minutes later for the new daemon: past the retry's time and any lease the kill left
    // (3 minutes), within the code's ten.
    await writeFile(clockFile, '240');
    const second = await startDaemon(args, env);
    try {
      const row = await waitFor('the mail recorded as sent', async () => {
        const { rows } = await pool.query(
          'SELECT status, attempts, subject, text_body FROM mail_outbox WHERE mail_id = $1',
          [id],
        );
        return rows[0]?.status === 'sent' ? rows[0] : undefined;
      });
      expect(row).toMatchObject({ subject: null, text_body: null });
      const code = await waitFor('the code mailed', () =>
        smtp?.received.find((m) => m.to === READER),
      );
      expect(smtp.received).toHaveLength(2);
      expect(smtp.received.find((m) => m.to === RECIPIENT)).toMatchObject({
        to: RECIPIENT,
        subject: SUBJECT,
        text: BODY,
        messageId: `<${id}@example.com>`,
      });
      expect(Date.now()).toBeGreaterThan(killedAt);
      // The code, mailed after the restart, still lets the reader in (within its ten minutes).
      const typed = /\b(\d{6})\b/.exec(code.subject)?.[1] ?? '';
      const entered = await fetch(link.url.replace(first.url, second.url), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: waiting },
        body: new URLSearchParams({ step: 'code', code: typed }).toString(),
      });
      expect(entered.status).toBe(303);
      logsMustNotHold.push(READER, typed);
      const after = await metricsOf(second.url);
      expect(seriesValue(after, 'flipbook_mail_messages{state="queued"}')).toBe(0);
      expect(seriesValue(after, 'flipbook_mail_oldest_queued_seconds')).toBe(0);
      expect(seriesValue(after, 'flipbook_mail_attempts_total{outcome="sent"}')).toBe(2);
      // Nothing of the mail, nor the password, in either daemon's logs; the mail's id is.
      const logs = first.logs() + second.logs();
      expect(logs).toContain(id);
      for (const secret of [PASSWORD, SUBJECT, BODY, RECIPIENT, 'Alice', ...logsMustNotHold]) {
        expect(logs).not.toContain(secret);
      }
    } finally {
      await second.stop();
    }
  });

  it.each([
    {
      what: 'a server URL with a path',
      args: ['--smtp-url', 'smtp://mailer:hunter22@mail.example.com/inbox'],
      env: {},
      from: 'flipbook@example.com',
      says: '--smtp-url takes no path, query or fragment',
    },
    {
      what: 'a server with no sender',
      args: [],
      env: { FLIPBOOK_SMTP_URL: 'smtps://mail.example.com' },
      says: '$FLIPBOOK_SMTP_URL needs --mail-from',
    },
    {
      what: 'a sender that is not an address',
      args: ['--smtp-url', 'smtps://mail.example.com'],
      env: {},
      from: 'Flipbook',
      says: '--mail-from must be an address',
    },
  ])('refuses $what in words, exit 2, never repeating a password', async (bad) => {
    const from = bad.from === undefined ? [] : ['--mail-from', bad.from];
    const refused = await flipbook(['serve', ...bad.args, ...from], bad.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(bad.says);
    expect(refused.stderr).not.toContain('hunter22');
  });
});
