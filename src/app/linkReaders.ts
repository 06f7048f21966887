// A share link that asks who reads (issue 44; docs/access.md, "Who reads"): the reader gives an
// address (and accepts the link's terms), or proves it with a six-digit code mailed to it; they
// are remembered on that browser (./readerCookies.ts) and their opening is told to the link's
// creator (./readerAlerts.ts). Readers are operational state (src/state/linkReaders.ts), their
// address sealed under their own key (./readerIdentity.ts), one key per workspace.
//
// Bounds (anyone holding the link can type addresses): new readers per link and hour, codes
// mailed per link and address as wrong passwords are counted (a code mailed is a try: it cannot
// be taken back), tries per code, and every wrong code one answer whatever was wrong.
import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { AppError, InvalidInput, refusal } from '../domain/errors.ts';
import { allowedBy, readerEmail } from '../domain/readerEmail.ts';
import type { LinkByToken } from '../readTables/shareLinks.ts';
import {
  allowList,
  countReaderOpen,
  dropReaderCode,
  findReader,
  markIdentified,
  type ReaderRow,
  readerByKid,
  readerFor,
  saveReaderCode,
  tryReaderCode,
} from '../state/linkReaders.ts';
import { codesMailedTo, queueMail } from '../state/mailOutbox.ts';
import type { Store } from '../store/store.ts';
import { claimAttempt, linkAccount } from './accounts/throttle.ts';
import type { Clock } from './clock.ts';
import { admitNewReader } from './readerAdmission.ts';
import { readerAlerts } from './readerAlerts.ts';
import { CODE_MS, type ReaderCookies, rulesKey } from './readerCookies.ts';
import { kidOf, openEmail, sealEmail } from './readerIdentity.ts';

export type ReaderDepsOfLinks = {
  store: Store;
  clock: Clock;
  secret: string;
  cookies: ReaderCookies;
  /** a mail server was given (serve --smtp-url): codes can be mailed */
  mailConfigured?: boolean;
};

export const CODE_TRIES = 5;
/** Codes one address is mailed in an hour, at every link of the installation together. */
export const CODES_PER_ADDRESS = 5;

/** A link that proves addresses, on a service started since without a mail server. */
export class CodeNeedsMail extends refusal(
  'CodeNeedsMail',
  503,
  'This link sends a code by mail, and mail is not set up now: tell whoever shared it',
  { 'Retry-After': '3600' },
) {}

/** One answer for every code that does not open: wrong, expired, used up, or none sent. */
export class WrongCode extends refusal(
  'WrongCode',
  401,
  'That code is not right, or no longer good: ask for a new one',
) {}

export class NotAllowedReader extends refusal(
  'NotAllowedReader',
  403,
  'This link is not for that address',
) {}

export class TermsNotAccepted extends InvalidInput {
  override name = 'TermsNotAccepted';
  constructor() {
    super('Accept the terms to read');
  }
}

/** An identified reader as the reader's pages need them. */
export type KnownReader = { readerId: string; email: string };

/** The reader a link's cookie names, while they are known (not erased) and identified. */
export const rememberedReader = async (
  deps: ReaderDepsOfLinks,
  link: LinkByToken,
  cookie: string | null,
): Promise<KnownReader | null> => {
  const mark = deps.cookies.readReader(cookie, rulesKey(link), deps.clock.now());
  if (mark?.linkId !== link.link_id) return null;
  const row = await findReader(deps.store.db, mark.readerId);
  if (!row || row.link_id !== link.link_id || !row.identified_at) return null;
  if (link.identify === 'verified_email' && !row.verified) return null;
  const email = await addressOf(deps, row);
  return email ? { readerId: row.reader_id, email } : null;
};

/** The reader a "code sent" cookie names (the code page), with their address, or null. */
export const waitingReader = async (
  deps: ReaderDepsOfLinks,
  link: LinkByToken,
  cookie: string | null,
) => {
  const mark = deps.cookies.readCode(cookie, rulesKey(link), deps.clock.now());
  if (mark?.linkId !== link.link_id) return null;
  const row = await findReader(deps.store.db, mark.readerId);
  const email = row?.link_id === link.link_id ? await addressOf(deps, row) : null;
  return row && email ? { readerId: row.reader_id, email } : null;
};

const addressOf = (deps: ReaderDepsOfLinks, row: ReaderRow) =>
  row.kid && row.email_ct ? openEmail(deps, { kid: row.kid, ct: row.email_ct }) : null;

export type Identified =
  /** let in: the cookie to keep */
  | { kind: 'reader'; reader: KnownReader; cookie: { value: string; seconds: number } }
  /** a code was mailed: the cookie that waits for it */
  | { kind: 'code'; email: string; cookie: { value: string; seconds: number } };

/**
 * An address (and the terms' acceptance) given at a link's form. For `email`, the reader is let
 * in; for `verified_email`, a code is mailed. Refused in words: not an address, not one the link
 * allows, the terms not accepted, too many new readers or codes.
 */
export const giveAddress = async (
  deps: ReaderDepsOfLinks,
  link: LinkByToken,
  given: { email: string; accepted: boolean; token: string },
  clientAddress: string | null,
): Promise<Identified> => {
  const email = readerEmail(given.email.slice(0, 1024), 'That');
  if (link.terms && !given.accepted) throw new TermsNotAccepted();
  if (link.allow_list_id) {
    const entries = await allowList(deps.store.db, link.allow_list_id);
    if (!allowedBy(entries, email)) throw new NotAllowedReader();
  }
  const now = deps.clock.now();
  const db = deps.store.db;
  // A reader giving their address again (another browser, a cookie lost) is no new reader.
  const kid = kidOf(deps, email.address, link.workspace_id);
  if (!(await readerByKid(db, link.link_id, kid))) {
    await admitNewReader(deps, link, clientAddress, now);
  }
  if (link.identify === 'verified_email') {
    if (!deps.mailConfigured) throw new CodeNeedsMail();
    // Each code mailed counts as a wrong try of the link's (from this client, and from all): it
    // costs a mail. Never taken back. And an address gets a few codes an hour, whoever asks for
    // them at whichever link: no one can fill an inbox through the service.
    await claimAttempt(
      deps.store,
      { account: `${linkAccount(link.link_id)}:codes`, address: clientAddress, pool: 'links' },
      now,
    );
    if (
      (await codesMailedTo(db, email.address, new Date(now.getTime() - 3_600_000))) >=
      CODES_PER_ADDRESS
    ) {
      throw new AppError(429, 'Too many codes were mailed to this address: try again in an hour', {
        'Retry-After': '3600',
      });
    }
  }
  const sealed = await sealEmail(deps, email.address, link.workspace_id);
  const row = await readerFor(db, {
    readerId: randomUUID(),
    linkId: link.link_id,
    flipbookId: link.flipbook_id,
    workspaceId: link.workspace_id,
    kid: sealed.kid,
    emailCt: sealed.ct,
    now,
  });
  const mark = { readerId: row.reader_id, linkId: link.link_id };
  if (link.identify !== 'verified_email') {
    return identified(deps, link, { readerId: row.reader_id, email: email.address }, false);
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await saveReaderCode(db, {
    readerId: row.reader_id,
    codeHash: codeHash(deps.secret, row.reader_id, code),
    expiresAt: new Date(now.getTime() + CODE_MS),
    now,
  });
  // Nothing the link's owner wrote goes into it (the flipbook's title): a code may be asked for
  // any address, and the mail must not carry anyone's message to it.
  await queueMail(
    db,
    {
      to: email.address,
      subject: `Your code: ${code}`,
      text: `Your code to read the document shared with you: ${code}\n\nIt is good for 10 minutes. If you did not ask for it, ignore this mail: nothing is shared without it.\n`,
      kind: 'reader_code',
      ref: row.reader_id,
      expiresAt: new Date(now.getTime() + CODE_MS),
    },
    now,
  );
  return {
    kind: 'code',
    email: email.address,
    cookie: deps.cookies.code(mark, rulesKey(link), now),
  };
};

/**
 * A code typed at a link's code page, by the reader its cookie names: throttled per link and
 * client as passwords are, at most CODE_TRIES for one code, and one answer for every wrong one.
 */
export const giveCode = async (
  deps: ReaderDepsOfLinks,
  link: LinkByToken,
  waiting: { readerId: string; email: string },
  typed: string,
  clientAddress: string | null,
): Promise<Identified & { kind: 'reader' }> => {
  const now = deps.clock.now();
  const db = deps.store.db;
  const claim = await claimAttempt(
    deps.store,
    { account: linkAccount(link.link_id), address: clientAddress, pool: 'links' },
    now,
  );
  const code = await tryReaderCode(db, waiting.readerId, now);
  const given = typed.replace(/[\s-]/g, '').slice(0, 12);
  // Compared in constant time, also when there is no code (against a hash of the same length).
  const actual = codeHash(deps.secret, waiting.readerId, given);
  const right = timingSafeEqual(Buffer.from(code?.code_hash ?? actual), Buffer.from(actual));
  if (!code || code.expired || code.tries > CODE_TRIES || !right || !/^\d{6}$/.test(given)) {
    throw new WrongCode();
  }
  await claim.right();
  await dropReaderCode(db, waiting.readerId);
  return identified(deps, link, waiting, true);
};

/**
 * A reader identified (their address given, or proven by a code): recorded with the terms they
 * accepted, told to the webhooks the first time, and the cookie that remembers them.
 */
const identified = async (
  deps: ReaderDepsOfLinks,
  link: LinkByToken,
  reader: KnownReader,
  verified: boolean,
): Promise<Identified & { kind: 'reader' }> => {
  const now = deps.clock.now();
  const first = await markIdentified(deps.store.db, reader.readerId, {
    verified,
    terms: link.terms,
    now,
  });
  if (first) await readerAlerts(deps).identified(link, reader.readerId, reader.email, verified);
  const mark = { readerId: reader.readerId, linkId: link.link_id };
  return { kind: 'reader', reader, cookie: deps.cookies.reader(mark, rulesKey(link), now) };
};

/** The reader opened the link's reader: counted, and told to its creator the first time. */
export const readerOpened = async (
  deps: ReaderDepsOfLinks,
  link: LinkByToken,
  reader: KnownReader,
  pages: number,
) => {
  const first = await countReaderOpen(deps.store.db, reader.readerId, pages, deps.clock.now());
  if (first) await readerAlerts(deps).opened(link, reader.readerId, reader.email);
};

const codeHash = (secret: string, readerId: string, code: string) =>
  createHmac('sha256', secret)
    .update(`reader code\u0000${readerId}\u0000${code}`)
    .digest('base64url');
