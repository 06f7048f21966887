// Whether mail goes out, for people (issue 44): the dashboard says "mail is failing" when a mail
// server was given (serve --smtp-url) and the outbox says mail is late or refused. Without a mail
// server nothing is mailed, so nothing can fail: that is said where an option needs mail.
import { mailHealth } from '../state/mailOutbox.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';

export type MailTrouble = {
  /** the server's reply code of the latest failed attempt, null when none came (no connection) */
  code: number | null;
  /** its reply, shortened (never a mail's contents: the outbox keeps none in it) */
  error: string | null;
  /** mails waiting to be sent */
  queued: number;
};

/** Mail as a page that offers it shows it (the share links' pages). */
export type MailState = {
  /** whether a mail server was given: without one, what mails is shown disabled */
  mailConfigured: boolean;
  /** mail configured but not going out */
  mailTrouble: MailTrouble | null;
};

/** Mail's trouble, or null when it goes out (or when no mail server was given). */
export const mailTrouble = async (deps: {
  store: Store;
  clock: Clock;
  mailConfigured?: boolean;
}): Promise<MailTrouble | null> => {
  if (!deps.mailConfigured) return null;
  const health = await mailHealth(deps.store.db, deps.clock.now());
  if (!health.failing) return null;
  return {
    code: health.lastError?.code ?? null,
    error: health.lastError ? health.lastError.error.slice(0, 200) : null,
    queued: health.queued,
  };
};

export const mailState = async (deps: Parameters<typeof mailTrouble>[0]): Promise<MailState> => ({
  mailConfigured: deps.mailConfigured === true,
  mailTrouble: await mailTrouble(deps),
});
