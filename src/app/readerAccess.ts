// Who may read a flipbook (docs/access.md). A public book is read at its URLs as always. A
// non-public one is entered at its reader (/f/:id for members, signed in to the dashboard) or at a
// share link (/s/<token>); what is let in gets a grant: a signed, short-lived name of who reads
// which flipbook, which prefixes the URLs of the book's files (/a/<grant>/...). Every request
// for such a file checks the grant's signature and then, in the database, that its holder still
// may read (the link not revoked or expired, the session open and its person still a member), so
// a revocation ends access at once on every daemon, also to URLs a browser already holds.
// One file (over 300 lines): every way in (a book, a link, its password, its reader, a grant)
// decided side by side, so that no way skips a check another makes.
import { randomBytes } from 'node:crypto';
import { NotFound, refusal } from '../domain/errors.ts';
import { grantSecret, liveLinkOf, memberSessionReads } from '../queries/access.ts';
import { findReaderFlipbook } from '../queries/reader.ts';
import { previewOfVersion } from '../readTables/previews.ts';
import {
  countLinkOpen,
  findLinkByTokenHash,
  type LinkByToken,
  linkPasswordHash,
} from '../readTables/shareLinks.ts';
import { findReader } from '../state/linkReaders.ts';
import type { Store } from '../store/store.ts';
import { decoyHash, verifyPassword } from './accounts/passwords.ts';
import { currentSession, SESSION_IDLE_MS } from './accounts/sessions.ts';
import { claimAttempt, linkAccount } from './accounts/throttle.ts';
import { hashToken, isWellFormedToken } from './accounts/tokens.ts';
import type { Clock } from './clock.ts';
import { type KnownReader, rememberedReader, waitingReader } from './linkReaders.ts';
import { type PreviewLinks, previewLinksSignedWith } from './previewLinks.ts';
import { type ReaderCookies, readerCookiesSignedWith, rulesKey } from './readerCookies.ts';
import { openEmail } from './readerIdentity.ts';
import { type Grant, type Grants, grantsSignedWith } from './readingGrants.ts';

/** How long a grant lets its holder read without entering again (revocation is felt at once). */
export const GRANT_MS = 12 * 3_600_000;

/** The installation's signing secret: made by the first daemon, shared by every one after. */
export const installationSecret = (store: Store) =>
  grantSecret(store.db, randomBytes(32).toString('hex'));

/** Who may read what, with the installation's secret read from the store (tests, tools). */
export const openAccess = async (store: Store, clock: Clock): Promise<AccessDeps> => {
  const secret = await installationSecret(store);
  return accessWith(store, clock, secret);
};

/** Who may read what, under the installation's `secret`. */
export const accessWith = (
  store: Store,
  clock: Clock,
  secret: string,
  mailConfigured = false,
): AccessDeps => ({
  store,
  clock,
  secret,
  mailConfigured,
  grants: grantsSignedWith(secret),
  previews: previewLinksSignedWith(secret),
  cookies: readerCookiesSignedWith(secret),
});

export type AccessDeps = {
  store: Store;
  clock: Clock;
  /** the installation's secret: seals readers' addresses (./readerIdentity.ts) */
  secret: string;
  grants: Grants;
  /** previews' addresses (./previewLinks.ts): /p/<token> opens without signing in */
  previews: PreviewLinks;
  /** what a browser keeps once its reader gave an address at a link (./readerCookies.ts) */
  cookies: ReaderCookies;
  /** a mail server was given: a link's codes can be mailed */
  mailConfigured: boolean;
};

/**
 * The preview a /p/<token> address opens, while it lives (promoted or deleted: null, a 404 like
 * any unknown address).
 */
export const enterByPreview = async ({ store, previews }: AccessDeps, token: string) => {
  const versionId = previews.versionOf(token);
  const row = versionId ? await previewOfVersion(store.db, versionId) : null;
  return row && { flipbookId: row.flipbook_id, versionId: row.version_id, name: row.name };
};

/** What a grant still lets its holder do with its flipbook's files; null: nothing (a 404). */
export const grantAllows = async (
  { store, clock, grants }: AccessDeps,
  text: string,
): Promise<GrantAllows | null> => {
  const now = clock.now();
  const grant = grants.read(text, now);
  if (!grant) return null;
  if (grant.kind === 'link') {
    const link = await liveLinkOf(store.db, grant.holder, now);
    if (link?.flipbook_id !== grant.flipbookId || !passwordHeld(link.password_id, grant)) {
      return null;
    }
    const allows = {
      flipbookId: grant.flipbookId,
      download: link.allow_download,
      stamp: null,
      readerId: null,
    };
    if (link.identify === 'none') return allows;
    // A link that asks who reads: a grant of the reader it named, while they are not erased
    // (one given before the link asked, or to a reader since erased, lets no one in).
    if (grant.rules !== rulesKey(link)) return null;
    const reader = grant.reader ? await findReader(store.db, grant.reader) : null;
    if (reader?.link_id !== grant.holder || !reader.kid || !reader.email_ct) return null;
    const readerId = reader.reader_id;
    if (!link.watermark) return { ...allows, readerId };
    const email = await openEmail({ store }, { kid: reader.kid, ct: reader.email_ct });
    return email ? { ...allows, readerId, stamp: watermarkText(email, now) } : null;
  }
  const idleSince = new Date(now.getTime() - SESSION_IDLE_MS);
  const reads = await memberSessionReads(store.db, grant.holder, grant.flipbookId, now, idleSince);
  return reads
    ? { flipbookId: grant.flipbookId, download: true, stamp: null, readerId: null }
    : null;
};

export type GrantAllows = {
  flipbookId: string;
  download: boolean;
  /** what every page and download is marked with (a link's `watermark`); null: nothing */
  stamp: string | null;
  /** the identified reader the grant is for (a link that asks who reads); null: none */
  readerId: string | null;
};

/** A watermark's words: the reader's address and the day (UTC) they read. */
export const watermarkText = (email: string, now: Date) =>
  `${email} · ${now.toISOString().slice(0, 10)}`;

/** How someone arriving at a reader gets in. */
export type Entry =
  /** a public book: its usual URLs */
  | { kind: 'public' }
  /** let in: the book's files under /a/<grant>/ */
  | { kind: 'granted'; grant: string; download: boolean }
  /** a workspace book and no one signed in */
  | { kind: 'sign-in' }
  /** a share link with a password, not given yet */
  | { kind: 'password'; link: LinkByToken }
  /** a share link that asks who reads: its form (or the code's, for a reader `waiting`) */
  | { kind: 'identify'; link: LinkByToken; waiting: { readerId: string; email: string } | null }
  /** nothing to read here for this person: the same 404 as an unknown id */
  | { kind: 'not-found' };

/** Whether a link grant was given under the link's password in force (any, if it has none). */
const passwordHeld = (passwordId: string | null, grant: Grant) =>
  passwordId === null || grant.key === passwordId;

const grantFor = (
  deps: AccessDeps,
  kind: Grant['kind'],
  holder: string,
  flipbookId: string,
  key: string | null = null,
  reader: { id: string; rules: string } | null = null,
) =>
  deps.grants.sign({
    kind,
    holder,
    flipbookId,
    expires: Math.floor((deps.clock.now().getTime() + GRANT_MS) / 1000),
    key,
    reader: reader?.id ?? null,
    rules: reader?.rules ?? null,
  });

/** At /f/:id: a public book, or another for its workspace's signed-in members. */
export const enterByBook = async (
  deps: AccessDeps,
  flipbookId: string,
  sessionToken: string | null,
): Promise<Entry> => {
  const book = await findReaderFlipbook(deps.store.db, flipbookId);
  if (!book || book.visibility === 'public') return { kind: 'public' };
  const session = sessionToken ? await currentSession(deps.store, sessionToken, deps.clock) : null;
  // A links-only book shows no one that it exists (no sign-in page); its own members, signed
  // in, read it like a workspace book: they publish it.
  if (!session) return { kind: book.visibility === 'links' ? 'not-found' : 'sign-in' };
  if (session.workspace.id !== book.workspace_id) return { kind: 'not-found' };
  return {
    kind: 'granted',
    grant: grantFor(deps, 'member', session.sessionId, flipbookId),
    download: true,
  };
};

export type LinkEntry = Entry & { flipbookId?: string };

/** What a browser brings to a share link: the cookies of its path. */
export type LinkProofs = {
  /** a grant it was given when it gave the link's password */
  password: string | null;
  /** the reader it was identified as (./readerCookies.ts) */
  reader: string | null;
  /** the reader waiting for a code */
  code: string | null;
};

/** A reader let in at a link that asks who reads. */
export type LinkReader = KnownReader & { watermark: string | null };

/**
 * At /s/<token>: the link's flipbook, whatever its visibility (a link names a reader the owner
 * chose), once its password is given and (a link that asks) its reader is known.
 * `opened`: this is someone opening the reader (counted per link and day), not its status poll.
 */
export const enterByLink = async (
  deps: AccessDeps,
  token: string,
  proofs: LinkProofs,
  opened: boolean,
): Promise<{
  entry: Entry;
  flipbookId: string | null;
  linkId?: string;
  link?: LinkByToken;
  reader?: LinkReader | null;
}> => {
  const now = deps.clock.now();
  const link = await linkOfToken(deps, token);
  if (!link || link.expired) return { entry: { kind: 'not-found' }, flipbookId: null };
  if (!passwordGiven(deps, link, proofs.password)) {
    return { entry: { kind: 'password', link }, flipbookId: link.flipbook_id };
  }
  const known = link.identify === 'none' ? null : await rememberedReader(deps, link, proofs.reader);
  if (link.identify !== 'none' && !known) {
    const waiting = await waitingReader(deps, link, proofs.code);
    return { entry: { kind: 'identify', link, waiting }, flipbookId: link.flipbook_id, link };
  }
  if (opened) await countLinkOpen(deps.store.db, link.link_id, now);
  const reader = known && {
    ...known,
    watermark: link.watermark ? watermarkText(known.email, now) : null,
  };
  return {
    entry: {
      kind: 'granted',
      grant: grantFor(
        deps,
        'link',
        link.link_id,
        link.flipbook_id,
        link.password_id,
        known && { id: known.readerId, rules: rulesKey(link) },
      ),
      download: link.allow_download,
    },
    flipbookId: link.flipbook_id,
    linkId: link.link_id,
    link,
    reader,
  };
};

/**
 * Whether a link's password (if it has one) was given by this browser: `proof` is the grant it
 * was given then. Asked before anything else a link asks (its reader's address, a code).
 */
export const passwordGiven = (
  deps: AccessDeps,
  link: Pick<LinkByToken, 'link_id' | 'password_id'>,
  proof: string | null,
) => {
  if (!link.password_id) return true;
  const given = proof ? deps.grants.read(proof, deps.clock.now()) : null;
  return (
    given?.kind === 'link' && given.holder === link.link_id && passwordHeld(link.password_id, given)
  );
};

/** The link a token opens (live or expired), or null. */
export const linkOfToken = (deps: AccessDeps, token: string) =>
  isWellFormedToken(token)
    ? findLinkByTokenHash(deps.store.db, hashToken(token), deps.clock.now())
    : Promise.resolve(null);

export class WrongLinkPassword extends refusal(
  'WrongLinkPassword',
  401,
  'That password is not right',
) {}

/**
 * A password given for a share link: throttled per link and per address like a sign-in, one
 * argon2id run whatever the case (a decoy for a link without a password), and one answer for
 * every wrong one. Returns the proof to keep (a grant, in a cookie for this link only).
 */
export const unlockLink = async (
  deps: AccessDeps,
  token: string,
  password: string,
  address: string | null,
): Promise<{ proof: string; maxAgeSeconds: number }> => {
  const now = deps.clock.now();
  const link = await linkOfToken(deps, token);
  if (!link || link.expired) throw new NotFound('Not found');
  const attempt = { account: linkAccount(link.link_id), address, pool: 'links' as const };
  const claim = await claimAttempt(deps.store, attempt, now);
  const stored = link.password_id ? await linkPasswordHash(deps.store.db, link.password_id) : null;
  const matches = await verifyPassword(password.slice(0, 1024), stored ?? (await decoyHash()));
  if (link.password_id && (!stored || !matches)) {
    throw new WrongLinkPassword();
  }
  await claim.right();
  return {
    proof: grantFor(deps, 'link', link.link_id, link.flipbook_id, link.password_id, null),
    maxAgeSeconds: Math.floor(GRANT_MS / 1000),
  };
};
