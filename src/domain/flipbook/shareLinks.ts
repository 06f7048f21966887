// A flipbook's share links, decided on the flipbook's stream: each is a URL for one recipient (its
// label), holding a random token of 256 bits that is shown once and recorded only as its SHA-256,
// like an API key. A link may expire, may ask for a password (its argon2id hash is kept in a
// table of its own, never in an event: the event names it by id), and may forbid downloading the
// PDF. Revoked links are gone: every command on them, and every URL of them, is a 404.
//
// Issue 44: a link may also ask who reads (`identify`: an address, or one proven by a code
// mailed to it), show terms to accept, be limited to some addresses or domains (the list kept in
// its own table, named by id in the events like a password: it holds addresses, which must stay
// erasable), mark each page with the reader's address (`watermark`) and tell its creator when a
// reader opens it (`notify`). Events before these fields read as a link that asks nothing.
// One file (over 300 lines): the link's fields, their checks and its three decisions in one place.
import type { Event } from '@event-driven-io/emmett';
import { InvalidInput, NotFound, RuleBroken } from '../errors.ts';
import { plainName } from '../flipbookFields.ts';
import { iso } from '../iso.ts';

export const MAX_LINKS = 2000;
export const MAX_LABEL = 200;
/** An expiry further away than this is a typo, not a plan. */
export const MAX_EXPIRY_YEARS = 10;
export const MIN_LINK_PASSWORD = 8;
export const MAX_LINK_PASSWORD = 256;

export const IDENTIFY_MODES = ['none', 'email', 'verified_email'] as const;
export type IdentifyMode = (typeof IDENTIFY_MODES)[number];
/** Terms a reader accepts: a confidentiality agreement is a page or two. */
export const MAX_TERMS = 20_000;
/** Addresses and domains one link may be limited to. */
export const MAX_ALLOW = 200;

/** What a link asks of its readers and does with who they are (all absent on older events). */
export type ReaderRules = {
  /** absent: `none` */
  identify?: IdentifyMode;
  /** the terms a reader accepts first; absent or null: none */
  terms?: string | null;
  /** the addresses and domains it is limited to (their list in link_allow_lists); null: anyone */
  allowListId?: string | null;
  watermark?: boolean;
  notify?: boolean;
};

type OfLink = { flipbookId: string; workspaceId: string; linkId: string; occurredAt: string };

export type ShareLinkCreated = Event<
  'ShareLinkCreated',
  OfLink & {
    label: string;
    /** hex SHA-256 of the token; the token itself is never stored */
    tokenHash: string;
    expiresAt: string | null;
    /** the password's credential (its hash in link_passwords); null: no password */
    passwordId: string | null;
    /** false: no download through this link, whatever the flipbook allows */
    allowDownload: boolean;
  } & ReaderRules
>;
/** Only the fields that changed are present; null clears an expiry or a password. */
export type ShareLinkEdited = Event<
  'ShareLinkEdited',
  OfLink & {
    label?: string;
    expiresAt?: string | null;
    passwordId?: string | null;
    allowDownload?: boolean;
  } & ReaderRules
>;
export type ShareLinkRevoked = Event<'ShareLinkRevoked', OfLink>;

export type ShareLinkEvent = ShareLinkCreated | ShareLinkEdited | ShareLinkRevoked;

export type LinkState = {
  label: string;
  expiresAt: string | null;
  passwordId: string | null;
  allowDownload: boolean;
  revoked: boolean;
} & Required<ReaderRules>;

type LinkFields = {
  label?: string;
  /** null: never expires */
  expiresAt?: Date | null;
  passwordId?: string | null;
  allowDownload?: boolean;
} & ReaderRules;

export type CreateShareLink = {
  type: 'CreateShareLink';
  data: LinkFields & { linkId: string; label: string; tokenHash: string; now: Date };
};
export type EditShareLink = {
  type: 'EditShareLink';
  data: LinkFields & { linkId: string; now: Date };
};
export type RevokeShareLink = { type: 'RevokeShareLink'; data: { linkId: string; now: Date } };
export type ShareLinkCommand = CreateShareLink | EditShareLink | RevokeShareLink;

/**
 * Every link event of a book, newest first. A fold adds one in O(1), sharing the rest with the
 * state before: a book with thousands of links is not copied link by link on every event (a
 * record of links was: 1.6 s to fold 2,000). A decision looks one link up by walking it once.
 */
export type LinkHistory = { event: ShareLinkEvent; older: LinkHistory } | null;
export type LinkLedger = { history: LinkHistory; live: number };
export const NO_LINKS: LinkLedger = { history: null, live: 0 };

/** The part of a flipbook these decisions read. */
export type LinkHolder = { flipbookId: string; workspaceId: string; links: LinkLedger };

/** A link's state from its events (null: never created). */
export const linkState = (ledger: LinkLedger, linkId: string): LinkState | null => {
  const own: ShareLinkEvent[] = [];
  for (let at = ledger.history; at; at = at.older) {
    if (at.event.data.linkId === linkId) own.push(at.event);
  }
  let state: LinkState | null = null;
  for (const event of own.reverse()) state = evolveLink(state, event);
  return state;
};

const evolveLink = (current: LinkState | null, event: ShareLinkEvent): LinkState | null => {
  switch (event.type) {
    case 'ShareLinkCreated': {
      const { label, expiresAt, passwordId, allowDownload } = event.data;
      return {
        label,
        expiresAt,
        passwordId,
        allowDownload,
        revoked: false,
        ...rulesAfter(ASKS_NOTHING, event.data),
      };
    }
    case 'ShareLinkEdited': {
      if (!current) return current;
      const { label, expiresAt, passwordId, allowDownload } = event.data;
      return {
        ...current,
        label: label ?? current.label,
        expiresAt: expiresAt === undefined ? current.expiresAt : expiresAt,
        passwordId: passwordId === undefined ? current.passwordId : passwordId,
        allowDownload: allowDownload ?? current.allowDownload,
        ...rulesAfter(current, event.data),
      };
    }
    case 'ShareLinkRevoked':
      return current && { ...current, revoked: true };
  }
};

/** A link that asks nothing of its readers: every link before issue 44. */
export const ASKS_NOTHING: Required<ReaderRules> = {
  identify: 'none',
  terms: null,
  allowListId: null,
  watermark: false,
  notify: false,
};

/** The reader rules after a change that names some of them (absent: unchanged). */
export const rulesAfter = (
  before: Required<ReaderRules>,
  change: ReaderRules,
): Required<ReaderRules> => ({
  identify: change.identify ?? before.identify,
  terms: change.terms === undefined ? before.terms : change.terms,
  allowListId: change.allowListId === undefined ? before.allowListId : change.allowListId,
  watermark: change.watermark ?? before.watermark,
  notify: change.notify ?? before.notify,
});

/** Terms as kept: trimmed, line ends as \n; empty is none. */
export const linkTerms = (raw: string | null) => {
  if (raw === null) return null;
  const value = raw.replace(/\r\n?/g, '\n').trim();
  if (value === '') return null;
  if ([...value].length > MAX_TERMS) {
    throw new InvalidInput(`Invalid terms: at most ${MAX_TERMS} characters`);
  }
  if (/[\p{Cc}]/u.test(value.replace(/[\n\t]/g, '')) || !value.isWellFormed()) {
    throw new InvalidInput('Invalid terms: no control characters but line breaks and tabs');
  }
  return value;
};

/** What the rules need of each other: the others act on who the reader is. */
const checkRules = (rules: Required<ReaderRules>) => {
  if (rules.identify !== 'none') return;
  const needs = (['watermark', 'notify'] as const).filter((k) => rules[k]);
  if (rules.allowListId !== null) needs.push('allow' as never);
  if (needs.length > 0) {
    throw new InvalidInput(
      `${needs.join(' and ')} need${needs.length === 1 ? 's' : ''} the reader's address: set identify to "email" or "verified_email"`,
    );
  }
};

export const linkLabel = (raw: unknown) => {
  if (typeof raw !== 'string') throw new InvalidInput('Invalid label: it must be a string');
  const value = plainName('label', raw.replace(/[\r\n\t]+/g, ' '));
  if ([...value].length > MAX_LABEL) {
    throw new InvalidInput(`Invalid label: at most ${MAX_LABEL} characters`);
  }
  return value;
};

/**
 * A password a link may ask for, whatever way it comes (the API, the dashboard's form): one a
 * reader can type into the password form, which takes no control characters.
 */
export const linkPassword = (password: string) => {
  const length = [...password].length;
  // Spaces and characters that show nothing (zero-width, direction marks) do not count as typed.
  if (length < MIN_LINK_PASSWORD || length > MAX_LINK_PASSWORD || /^[\s\p{Cf}]*$/u.test(password)) {
    throw new InvalidInput(
      `Invalid password: ${MIN_LINK_PASSWORD} to ${MAX_LINK_PASSWORD} characters, not only spaces`,
    );
  }
  // Nothing a reader cannot type into the form: controls, invisible format characters, line
  // and paragraph separators, halves of a character.
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(password) || !password.isWellFormed()) {
    throw new InvalidInput(
      'Invalid password: no control or invisible characters (line breaks, tabs, NUL, zero-width)',
    );
  }
  return password;
};

const expiry = (at: Date | null, now: Date) => {
  if (at === null) return null;
  if (Number.isNaN(at.getTime())) throw new InvalidInput('Invalid expires_at: not a date');
  if (at.getTime() <= now.getTime()) {
    throw new InvalidInput('Invalid expires_at: it must be in the future');
  }
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_EXPIRY_YEARS);
  if (at > latest) {
    throw new InvalidInput(`Invalid expires_at: at most ${MAX_EXPIRY_YEARS} years from now`);
  }
  return iso(at);
};

const live = (book: LinkHolder, linkId: string) => {
  const link = linkState(book.links, linkId);
  if (!link || link.revoked) throw new NotFound('Share link not found');
  return link;
};

const ofLink = (book: LinkHolder, linkId: string, now: Date): OfLink => ({
  flipbookId: book.flipbookId,
  workspaceId: book.workspaceId,
  linkId,
  occurredAt: iso(now),
});

const createShareLink = ({ data }: CreateShareLink, book: LinkHolder): ShareLinkEvent[] => {
  if (linkState(book.links, data.linkId)) return [];
  if (book.links.live >= MAX_LINKS) {
    throw new RuleBroken(
      `A flipbook has at most ${MAX_LINKS} share links: revoke one before creating another`,
    );
  }
  return [
    {
      type: 'ShareLinkCreated',
      data: {
        ...ofLink(book, data.linkId, data.now),
        label: linkLabel(data.label),
        tokenHash: data.tokenHash,
        expiresAt: expiry(data.expiresAt ?? null, data.now),
        passwordId: data.passwordId ?? null,
        allowDownload: data.allowDownload ?? true,
        ...createdRules(data),
      },
    },
  ];
};

/** A new link's rules: only those that ask something are written (an older link's shape). */
const createdRules = (data: LinkFields): ReaderRules => {
  const rules = rulesAfter(ASKS_NOTHING, { ...data, terms: linkTerms(data.terms ?? null) });
  checkRules(rules);
  const written: ReaderRules = {};
  for (const key of Object.keys(ASKS_NOTHING) as (keyof ReaderRules)[]) {
    if (rules[key] !== ASKS_NOTHING[key]) Object.assign(written, { [key]: rules[key] });
  }
  return written;
};

const editShareLink = ({ data }: EditShareLink, book: LinkHolder): ShareLinkEvent[] => {
  const link = live(book, data.linkId);
  const changes: Omit<ShareLinkEdited['data'], keyof OfLink> = {};
  if (data.label !== undefined) {
    const label = linkLabel(data.label);
    if (label !== link.label) changes.label = label;
  }
  if (data.expiresAt !== undefined) {
    const expiresAt = expiry(data.expiresAt, data.now);
    if (expiresAt !== link.expiresAt) changes.expiresAt = expiresAt;
  }
  // A new password is always a change (a new credential), even if the same letters.
  if (data.passwordId !== undefined && (data.passwordId !== null || link.passwordId !== null))
    changes.passwordId = data.passwordId;
  if (data.allowDownload !== undefined && data.allowDownload !== link.allowDownload)
    changes.allowDownload = data.allowDownload;
  const asked = {
    ...data,
    ...(data.terms === undefined ? {} : { terms: linkTerms(data.terms) }),
  };
  checkRules(rulesAfter(link, asked));
  for (const key of Object.keys(ASKS_NOTHING) as (keyof ReaderRules)[]) {
    const value = asked[key];
    // A new allow list is always a change (its own row), as a new password is.
    if (value !== undefined && (value !== link[key] || key === 'allowListId'))
      if (!(key === 'allowListId' && value === null && link.allowListId === null))
        Object.assign(changes, { [key]: value });
  }
  if (Object.keys(changes).length === 0) return [];
  return [
    { type: 'ShareLinkEdited', data: { ...ofLink(book, data.linkId, data.now), ...changes } },
  ];
};

const revokeShareLink = ({ data }: RevokeShareLink, book: LinkHolder): ShareLinkEvent[] => {
  live(book, data.linkId);
  return [{ type: 'ShareLinkRevoked', data: ofLink(book, data.linkId, data.now) }];
};

const DECISIONS = {
  CreateShareLink: createShareLink,
  EditShareLink: editShareLink,
  RevokeShareLink: revokeShareLink,
} as const;

export const decideShareLinks = (command: ShareLinkCommand, book: LinkHolder): ShareLinkEvent[] =>
  (DECISIONS[command.type] as (c: ShareLinkCommand, b: LinkHolder) => ShareLinkEvent[])(
    command,
    book,
  );

/** One more link event: O(1), whatever the book's number of links. */
export const evolveShareLinks = (ledger: LinkLedger, event: ShareLinkEvent): LinkLedger => ({
  history: { event, older: ledger.history },
  // (the decider revokes only live links, and creates each id once)
  live:
    ledger.live +
    (event.type === 'ShareLinkCreated' ? 1 : event.type === 'ShareLinkRevoked' ? -1 : 0),
});
