// Mail, in process: the outbox (src/state/mailOutbox.ts) on the harness's PostgreSQL and clock,
// the daemon's sender (src/mail/sender.ts) started as the daemon starts it, and a real SMTP server
// (test/support/smtpServer.ts). A mail queued arrives with its headers; a refusal at RCPT TO or
// DATA, a server down, a silent one, an untrusted certificate are retried on the app's clock (moved,
// never waited for) and the mail arrives once; a day of failures, or an expiry, ends as failed;
// smtps with the test's own certificate and a password; two senders on one outbox send each mail
// once; what is kept, and for how long. A daemon killed mid-queue is test/e2e/mail.e2e.test.ts's.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logger } from '../../src/log.ts';
import { parseMailFrom, parseSmtpUrl } from '../../src/mail/mailSettings.ts';
import { type MailSenderOptions, startMailSender } from '../../src/mail/sender.ts';
import {
  claimDueMail,
  forgetOldMail,
  forgetRecipient,
  MAIL_LATE_MS,
  mailHealth,
  type OutgoingMail,
  queueMail,
  recordMailOutcome,
} from '../../src/state/mailOutbox.ts';
import { useApp } from '../support/appSpec.ts';
import {
  closedPort,
  type SmtpServerUnderTest,
  startSmtpServer,
  testCertificate,
} from '../support/smtpServer.ts';
import { waitFor } from '../support/waitFor.ts';

type Row = {
  mail_id: string;
  kind: string;
  ref: string | null;
  recipient: string;
  subject: string | null;
  text_body: string | null;
  html_body: string | null;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_at: Date;
  last_attempt_at: Date | null;
  last_code: number | null;
  last_error: string | null;
};

const FROM = 'Flipbook <flipbook@example.com>';
const DAY = 24 * 60 * 60 * 1000;

describe('mail (the outbox and its sender, in process, a real SMTP server)', () => {
  const fx = useApp();
  const running: { stop: () => Promise<void> }[] = [];
  const servers: SmtpServerUnderTest[] = [];

  const sender = (url: string, more: Partial<MailSenderOptions> = {}) => {
    const started = startMailSender(fx.store, logger, fx.clock, {
      settings: { smtp: parseSmtpUrl(url), from: parseMailFrom(FROM) },
      tickMs: 50,
      ...more,
    });
    running.push(started);
    return started;
  };
  const server = async (options: Parameters<typeof startSmtpServer>[0] = {}) => {
    const started = await startSmtpServer(options);
    servers.push(started);
    return started;
  };
  const queue = (mail: Partial<OutgoingMail> = {}) =>
    queueMail(
      fx.store.db,
      {
        to: 'reader@example.org',
        subject: 'Your code',
        text: 'Your code is 123456.',
        kind: 'reader_code',
        ref: 'link-1',
        ...mail,
      },
      fx.clock.now(),
    );
  const rowOf = async (id: string) =>
    (await fx.store.db.query<Row>('SELECT * FROM mail_outbox WHERE mail_id = $1', [id])).rows[0];
  const waitRow = (what: string, id: string, done: (row: Row) => boolean) =>
    waitFor(what, async () => {
      const row = await rowOf(id);
      return row && done(row) ? row : undefined;
    });
  /** ms from an attempt to the next, as the row says */
  const waitOf = (row: Row) => row.next_at.getTime() - (row.last_attempt_at as Date).getTime();

  beforeEach(async () => {
    await fx.store.db.query('DELETE FROM mail_outbox');
  });
  afterEach(async () => {
    for (const started of running.splice(0)) await started.stop();
    for (const started of servers.splice(0)) await started.close();
  });

  it('sends a queued mail with its headers and parts, then keeps no contents', async () => {
    const smtp = await server();
    sender(`smtp://127.0.0.1:${smtp.port}`);
    const subject = 'Ihr Code für „Preisliste 2027“';
    const id = await queue({
      subject,
      text: 'Hello,\nyour code is 123456 (valid 10 minutes).',
      html: '<p>Your code is <b>123456</b></p>',
    });
    const [mail] = await waitFor('the mail', () =>
      smtp.received.length > 0 ? smtp.received : undefined,
    );
    expect(mail).toMatchObject({
      envelope: { from: 'flipbook@example.com', to: ['reader@example.org'] },
      from: FROM,
      to: 'reader@example.org',
      subject,
      messageId: `<${id}@example.com>`,
      text: 'Hello,\nyour code is 123456 (valid 10 minutes).',
      html: '<p>Your code is <b>123456</b></p>',
    });
    const row = await waitRow('recorded as sent', id, (r) => r.status === 'sent');
    expect(row).toMatchObject({
      kind: 'reader_code',
      ref: 'link-1',
      recipient: 'reader@example.org',
      attempts: 1,
      last_code: 250,
      last_error: null,
      // sent: its contents are gone
      subject: null,
      text_body: null,
      html_body: null,
    });
    expect(await mailHealth(fx.store.db, fx.clock.now())).toEqual({
      queued: 0,
      failed: 0,
      oldestQueuedSeconds: null,
      lastError: null,
      failing: false,
    });
    expect(smtp.received).toHaveLength(1);
  });

  it('queues inside the caller’s transaction: a rollback sends nothing', async () => {
    const smtp = await server();
    sender(`smtp://127.0.0.1:${smtp.port}`);
    const client = await fx.store.pool.connect();
    // One mail queued in a transaction of its own, which then ends with `end`.
    const queuedIn = async (end: 'ROLLBACK' | 'COMMIT', to: string, subject: string) => {
      await client.query('BEGIN');
      const id = await queueMail(client, { to, subject, text: '-', kind: 'test' }, fx.clock.now());
      await client.query(end);
      return id;
    };
    let dropped: string;
    let kept: string;
    try {
      dropped = await queuedIn('ROLLBACK', 'a@example.org', 'dropped');
      kept = await queuedIn('COMMIT', 'b@example.org', 'kept');
    } finally {
      client.release();
    }
    await waitRow('the committed mail sent', kept, (r) => r.status === 'sent');
    expect(smtp.received.map((m) => m.subject)).toEqual(['kept']);
    expect(await rowOf(dropped)).toBeUndefined();
  });

  it('refuses to queue what no server should see', async () => {
    await expect(queue({ to: 'a@example.org\r\nBcc: eve@example.org' })).rejects.toThrow(
      /not one address/,
    );
    await expect(queue({ subject: 'Hello\r\nBcc: eve@example.org' })).rejects.toThrow(/one line/);
    await expect(queue({ kind: 'Reader Code' })).rejects.toThrow(/snake_case/);
  });

  it('retries a refusal at RCPT TO, then at DATA, and sends once accepted', async () => {
    const smtp = await server();
    smtp.refuseWith((stage, n) =>
      stage === 'rcpt' && n === 1
        ? { code: 550, text: '5.1.1 <reader@example.org>: Recipient address rejected' }
        : stage === 'data' && n === 1
          ? { code: 554, text: '5.7.1 Message refused' }
          : null,
    );
    sender(`smtp://127.0.0.1:${smtp.port}`);
    const id = await queue();
    const first = await waitRow('the first attempt', id, (r) => r.attempts === 1 && !!r.last_code);
    expect(first).toMatchObject({
      status: 'pending',
      last_code: 550,
      // the step and the codes, never the server's text (it names the recipient)
      last_error: 'The recipient (RCPT TO) refused: 550 5.1.1',
    });
    // The first retry is due about 10 s (± 20 %) later, on the app's clock: counted from when
    // the attempt began, so the attempt's own SMTP exchange adds to it (85 ms seen under load).
    expect(waitOf(first)).toBeGreaterThanOrEqual(8_000);
    expect(waitOf(first)).toBeLessThanOrEqual(13_000);
    const health = await mailHealth(fx.store.db, fx.clock.now());
    expect(health).toMatchObject({ queued: 1, failing: true });
    expect(health.lastError).toMatchObject({ code: 550 });
    fx.clock.advance(12_000);
    const second = await waitRow(
      'the second attempt',
      id,
      (r) => r.attempts === 2 && r.last_code === 554,
    );
    expect(second.last_error).toBe('The message (DATA) refused: 554 5.7.1');
    expect(waitOf(second)).toBeGreaterThanOrEqual(24_000);
    expect(waitOf(second)).toBeLessThanOrEqual(37_000);
    fx.clock.advance(36_000);
    const sent = await waitRow('sent', id, (r) => r.status === 'sent');
    expect(sent).toMatchObject({ attempts: 3, last_code: 250, last_error: null });
    expect(smtp.received).toHaveLength(1);
    expect(smtp.reached).toEqual({ rcpt: 3, data: 2 });
    expect((await mailHealth(fx.store.db, fx.clock.now())).failing).toBe(false);
  });

  it('waits for a server that is down, and sends once it is up', async () => {
    const port = await closedPort();
    sender(`smtp://127.0.0.1:${port}`);
    const id = await queue();
    const failed = await waitRow(
      'the refused connection',
      id,
      (r) => r.attempts === 1 && !!r.last_error,
    );
    expect(failed).toMatchObject({
      status: 'pending',
      last_code: null,
      last_error: 'Connection refused',
    });
    const smtp = await server({ port });
    fx.clock.advance(12_000);
    await waitRow('sent', id, (r) => r.status === 'sent');
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]?.messageId).toBe(`<${id}@example.com>`);
  });

  it('gives a silent server up quickly, never hangs on it, and gives the mail up after a day', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket); // accepted, never greeted
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as { port: number };
    try {
      sender(`smtp://127.0.0.1:${port}`, { timeouts: { connectMs: 300, socketMs: 300 } });
      const started = Date.now();
      const id = await queue();
      const first = await waitRow(
        'the first attempt',
        id,
        (r) => r.attempts === 1 && !!r.last_error,
      );
      expect(first.last_error).toBe('The mail server did not answer in time');
      expect(Date.now() - started).toBeLessThan(5_000);
      // A day later the next attempt is the last.
      fx.clock.advance(DAY + 60_000);
      const given = await waitRow('given up', id, (r) => r.status === 'failed');
      expect(given).toMatchObject({
        attempts: 2,
        last_error: 'The mail server did not answer in time (a day of retries)',
        subject: null,
        text_body: null,
      });
      expect(await mailHealth(fx.store.db, fx.clock.now())).toMatchObject({
        queued: 0,
        failed: 1,
        failing: true,
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('does not send a mail past its expiry', async () => {
    const port = await closedPort();
    sender(`smtp://127.0.0.1:${port}`);
    const id = await queue({ expiresAt: new Date(fx.clock.now().getTime() + 60_000) });
    await waitRow('the first attempt', id, (r) => r.attempts === 1 && !!r.last_error);
    const smtp = await server({ port });
    fx.clock.advance(120_000);
    const expired = await waitRow('expired', id, (r) => r.status === 'failed');
    expect(expired.last_error).toBe('Expired before it could be sent');
    expect(smtp.received).toHaveLength(0);
  });

  it('speaks smtps with a password, trusting only the certificate it is told to', async () => {
    const certificate = testCertificate();
    const auth = { user: 'mailer@example.com', password: 'p@ss:w0rd' };
    const smtp = await server({ tls: certificate, auth });
    const url = (password: string) =>
      `smtps://${encodeURIComponent(auth.user)}:${encodeURIComponent(password)}@localhost:${smtp.port}`;
    // Not trusted: a failure, retried, not a mail sent in the clear or to anyone.
    const untrusted = sender(url(auth.password));
    const id = await queue();
    const refused = await waitRow('the untrusted certificate', id, (r) => !!r.last_error);
    expect(refused.last_error).toMatch(/certificate/);
    await untrusted.stop();
    // Trusted, but the wrong password.
    const wrong = sender(url('nope'), { tls: { ca: certificate.cert } });
    fx.clock.advance(12_000);
    const denied = await waitRow('the wrong password', id, (r) => r.last_code === 535);
    expect(denied).toMatchObject({ attempts: 2, last_error: 'Authentication refused: 535' });
    await wrong.stop();
    sender(url(auth.password), { tls: { ca: certificate.cert } });
    fx.clock.advance(36_000);
    await waitRow('sent', id, (r) => r.status === 'sent');
    expect(smtp.received).toHaveLength(1);
  });

  it('sends each mail once with two senders on one outbox', async () => {
    const smtp = await server();
    sender(`smtp://127.0.0.1:${smtp.port}`);
    sender(`smtp://127.0.0.1:${smtp.port}`);
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        queue({ to: `reader${i}@example.org`, subject: `#${i}` }),
      ),
    );
    await waitFor('all twelve sent', async () => {
      const { rows } = await fx.store.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM mail_outbox WHERE status = 'sent'",
      );
      return rows[0]?.n === 12 ? true : undefined;
    });
    expect(smtp.received.map((m) => m.messageId).sort()).toEqual(
      ids.map((id) => `<${id}@example.com>`).sort(),
    );
    const { rows } = await fx.store.db.query<{ attempts: number }>(
      'SELECT attempts FROM mail_outbox',
    );
    expect(rows.map((r) => r.attempts)).toEqual(Array(12).fill(1));
  });

  it('keeps a sent mail’s row 7 days, a failed one’s 30, and forgets an address at once', async () => {
    // No sender: the outcomes are written as a sender would.
    const sent = await queue({ to: 'sent@example.org' });
    const failed = await queue({ to: 'Failed@Example.org' });
    const waiting = await queue({ to: 'waiting@example.org' });
    const t0 = fx.clock.now();
    const claimed = await claimDueMail(fx.store.db, t0, new Date(t0.getTime() + 60_000), 10);
    expect(claimed.map((m) => m.mail_id).sort()).toEqual([sent, failed, waiting].sort());
    await recordMailOutcome(fx.store.db, sent, t0, { kind: 'sent', code: 250 });
    await recordMailOutcome(fx.store.db, failed, t0, { kind: 'failed', code: 550, error: 'x' });
    await recordMailOutcome(fx.store.db, waiting, t0, {
      kind: 'retry',
      code: null,
      error: 'Connection refused',
      nextAt: new Date(t0.getTime() + 10_000),
    });
    // A mail that waits is late past MAIL_LATE_MS.
    const late = await mailHealth(fx.store.db, new Date(t0.getTime() + MAIL_LATE_MS + 1_000));
    expect(late.oldestQueuedSeconds).toBeGreaterThan(MAIL_LATE_MS / 1000);
    const at = (days: number) => new Date(t0.getTime() + days * DAY + 1_000);
    expect(await forgetOldMail(fx.store.db, at(6))).toBe(0);
    expect(await forgetOldMail(fx.store.db, at(7))).toBe(1);
    expect(await rowOf(sent)).toBeUndefined();
    expect((await rowOf(failed))?.status).toBe('failed');
    // An erasure takes the address at once, whatever its case.
    expect(await forgetRecipient(fx.store.db, 'failed@example.org')).toBe(1);
    expect(await rowOf(failed)).toBeUndefined();
    // A mail never sent (no daemon has a mail server) goes after 30 days too.
    expect(await forgetOldMail(fx.store.db, at(29))).toBe(0);
    expect(await forgetOldMail(fx.store.db, at(30))).toBe(1);
    expect(await rowOf(waiting)).toBeUndefined();
  });
});
