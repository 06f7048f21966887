// Sends the mail outbox (src/state/mailOutbox.ts): every daemon runs one. It takes due mails in
// small batches (leased, so several daemons never send one at the same time), hands each to the
// mail server with nodemailer over a connection of its own, and records the outcome; a failure
// is retried on the schedule of src/domain/mailRetry.ts. A dead or silent server is a quick
// failure (connect, greeting and socket timeouts), never a hang: the loop is never on a request's
// path, and a slow server holds one of a few slots at a time.
//
// A kill -9 mid-send leaves the mail leased: once the lease runs out, a daemon sends it again.
// Killed before the server accepted the message (its reply to DATA), the server dropped it, so it
// arrives once; killed in the moment between that reply and the row's update, it arrives twice,
// with the same Message-ID (receivers that deduplicate show one). Nothing of a mail's contents
// reaches a log: its kind, id, attempts and the server's reply code only.
//
// Without a mail server (no --smtp-url) nothing is sent, but the pass that deletes finished mails
// past their keeping runs all the same: no mail's personal data outlives MAIL_KEPT_DAYS.

import { randomInt } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import nodemailer from 'nodemailer';
import type { Clock } from '../app/clock.ts';
import { afterMailFailure } from '../domain/mailRetry.ts';
import type { Logger } from '../log.ts';
import { mailAttempts } from '../metrics.ts';
import { attemptsUnderWay, pollLoop } from '../senderLoop.ts';
import {
  type ClaimedMail,
  claimDueMail,
  forgetOldMail,
  recordMailOutcome,
} from '../state/mailOutbox.ts';
import type { Store } from '../store/store.ts';
import type { MailSettings } from './mailSettings.ts';

/** Each step's bound: connecting, the server's greeting, and any silence once connected. */
const CONNECT_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;
/** Longer than an attempt can take (the timeouts above, a few steps each), so none is sent twice. */
const LEASE_MS = 3 * 60_000;
const SLOTS = 4;
const TICK_MS = 1_000;
const FORGET_EVERY_MS = 60 * 60_000;
/** A stop waits this long for attempts under way; their leases hand the rest to the next start. */
const STOP_WAIT_MS = 10_000;

export type MailSenderOptions = {
  /** null: no mail server, nothing is sent (finished mails are still deleted in time) */
  settings: MailSettings | null;
  tickMs?: number;
  /** TLS options for the server's connection (tests: their own certificate authority) */
  tls?: ConnectionOptions;
  /** shorter bounds for tests of a silent server (default 10 s to connect and greet, 30 s silence) */
  timeouts?: { connectMs: number; socketMs: number };
};

export const startMailSender = (
  store: Store,
  log: Logger,
  clock: Clock,
  options: MailSenderOptions,
) => {
  const { settings } = options;
  const transport = settings
    ? nodemailer.createTransport({
        host: settings.smtp.host,
        port: settings.smtp.port,
        secure: settings.smtp.secure,
        ...(settings.smtp.auth
          ? { auth: { user: settings.smtp.auth.user, pass: settings.smtp.auth.password } }
          : {}),
        connectionTimeout: options.timeouts?.connectMs ?? CONNECT_TIMEOUT_MS,
        greetingTimeout: options.timeouts?.connectMs ?? CONNECT_TIMEOUT_MS,
        dnsTimeout: options.timeouts?.connectMs ?? CONNECT_TIMEOUT_MS,
        socketTimeout: options.timeouts?.socketMs ?? SOCKET_TIMEOUT_MS,
        // Mails are the service's own text: never a file or a URL nodemailer would fetch.
        disableFileAccess: true,
        disableUrlAccess: true,
        ...(options.tls ? { tls: options.tls } : {}),
      })
    : null;
  const fromDomain = settings?.from.address.split('@').at(-1) ?? 'localhost';
  const inFlight = attemptsUnderWay();
  let forgotAt = Number.NEGATIVE_INFINITY;

  const send = async (mail: ClaimedMail) => {
    if (!transport || !settings) throw new Error('no mail server');
    try {
      const info = await transport.sendMail({
        from: { name: settings.from.name, address: settings.from.address },
        to: mail.recipient,
        subject: mail.subject,
        text: mail.text_body,
        ...(mail.html_body === null ? {} : { html: mail.html_body }),
        // The same on every attempt: a mail sent twice (a kill at the wrong moment) is one.
        messageId: `<${mail.mail_id}@${fromDomain}>`,
      });
      return { sent: true as const, code: replyCode(info.response) };
    } catch (error) {
      return { sent: false as const, ...describe(error) };
    }
  };

  const attempt = async (mail: ClaimedMail) => {
    const times = { queuedAt: mail.created_at, expiresAt: mail.expires_at };
    if (mail.expires_at !== null && clock.now() >= mail.expires_at) {
      await finish(mail, { kind: 'failed', code: null, error: 'Expired before it could be sent' });
      return;
    }
    const result = await send(mail);
    const now = clock.now();
    if (result.sent) {
      await finish(mail, { kind: 'sent', code: result.code });
      return;
    }
    const decision = afterMailFailure(
      mail.attempts,
      { now, ...times },
      randomInt(1_000_000) / 1_000_000,
    );
    await finish(
      mail,
      decision.kind === 'retry'
        ? { kind: 'retry', code: result.code, error: result.error, nextAt: decision.at }
        : { kind: 'failed', code: result.code, error: `${result.error} (${decision.why})` },
    );
  };

  const finish = async (mail: ClaimedMail, outcome: Parameters<typeof recordMailOutcome>[3]) => {
    mailAttempts.inc({ outcome: outcome.kind });
    await recordMailOutcome(store.db, mail.mail_id, clock.now(), outcome);
    const fields = {
      mailId: mail.mail_id,
      kind: mail.kind,
      attempts: mail.attempts,
      code: outcome.code,
    };
    if (outcome.kind === 'sent') log.info(fields, 'mail sent');
    else if (outcome.kind === 'retry')
      log.warn({ ...fields, nextAt: outcome.nextAt }, 'mail not sent: will retry');
    else log.error(fields, 'mail given up');
  };

  const tick = async () => {
    const now = clock.now();
    if (performance.now() - forgotAt >= FORGET_EVERY_MS) {
      forgotAt = performance.now();
      const gone = await forgetOldMail(store.db, now);
      if (gone > 0) log.info({ mails: gone }, 'finished mails past their keeping deleted');
    }
    const free = SLOTS - inFlight.size;
    if (!transport || free <= 0) return;
    const claimed = await claimDueMail(store.db, now, new Date(now.getTime() + LEASE_MS), free);
    for (const mail of claimed) {
      inFlight.add(
        attempt(mail).catch((error: Error) =>
          log.error({ mailId: mail.mail_id, kind: mail.kind, err: error }, 'mail attempt failed'),
        ),
      );
    }
  };

  const poll = pollLoop(tick, options.tickMs ?? TICK_MS, (error) =>
    log.warn({ err: error }, 'mail sender: could not read the outbox'),
  );

  return {
    /** Stops taking mails; waits up to 10 s for attempts under way (leases cover the rest). */
    stop: async () => {
      poll.stop();
      await inFlight.settled(STOP_WAIT_MS);
      transport?.close();
    },
  };
};

/** The reply code of a server's answer ("250 2.0.0 Ok: queued"), or null. */
const replyCode = (response: string | undefined) => {
  const code = /^(\d{3})\b/.exec(response ?? '')?.[1];
  return code === undefined ? null : Number(code);
};

/**
 * A failed attempt in a few words, for the outbox and the dashboard: the step and the server's
 * reply code (with its enhanced status, 5.1.1), never the reply's text, which often repeats the
 * recipient's address.
 */
const describe = (error: unknown): { code: number | null; error: string } => {
  const e = error as {
    code?: string;
    responseCode?: number;
    response?: string;
    command?: string;
    message?: string;
  };
  const code = typeof e?.responseCode === 'number' ? e.responseCode : null;
  if (code !== null) {
    const enhanced = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(e.response ?? '')?.[1];
    const step = e.code === 'EAUTH' ? 'Authentication' : stepOf(e.command);
    return { code, error: `${step} refused: ${code}${enhanced ? ` ${enhanced}` : ''}` };
  }
  const message = e?.message ?? String(error);
  if (e?.code === 'ETIMEDOUT' || /timeout/i.test(message)) {
    return { code, error: 'The mail server did not answer in time' };
  }
  if (/ECONNREFUSED/.test(message)) return { code, error: 'Connection refused' };
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return { code, error: 'The host name does not resolve' };
  if (/ECONNRESET|closed/i.test(message)) return { code, error: 'The connection was closed' };
  return { code, error: `${e?.code ?? 'Error'}: ${message}`.slice(0, 200) };
};

const stepOf = (command: string | undefined) => {
  const verb = (command ?? '').trim().split(/\s/)[0]?.toUpperCase() ?? '';
  if (verb === 'RCPT') return 'The recipient (RCPT TO)';
  if (verb === 'MAIL') return 'The sender (MAIL FROM)';
  if (verb === 'DATA' || verb === '') return 'The message (DATA)';
  if (verb === 'AUTH') return 'Authentication';
  return verb;
};
