// Room for one more identified reader at a share link (issue 44; docs/access.md, "Who reads"):
// anyone holding the link can type addresses, and each new one is a row the link keeps. Bounded
// in all, per link and hour, and per client, so that one script can neither grow a link's
// readers without end nor shut its real readers out for the hour.
import { randomUUID } from 'node:crypto';
import { senderKey } from '../domain/analytics/senderKey.ts';
import { AppError, refusal } from '../domain/errors.ts';
import type { LinkByToken } from '../readTables/shareLinks.ts';
import { countFailures, pruneFailures, releaseAttempt, reserveAttempt } from '../state/accounts.ts';
import { newReadersSince, readersOfLink } from '../state/linkReaders.ts';
import type { Store } from '../store/store.ts';
import { THROTTLE } from './accounts/throttle.ts';

/** New readers a link takes in an hour: a class of a school, not a script's thousands. */
export const NEW_READERS_PER_HOUR = 500;
/**
 * New readers one client (an address; an IPv6 address's /64) adds at a link in THROTTLE's window
 * (15 minutes): a class behind its school's one address, and never the link's whole hour, so one
 * script cannot shut a link's real readers out.
 */
export const NEW_READERS_PER_CLIENT = 50;
/** Readers a link keeps at most (all of them listed, and in its CSV). */
export const MAX_READERS_PER_LINK = 10_000;
/** A link that keeps no more readers: its reader's form says so in their language. */
export class LinkFull extends refusal(
  'LinkFull',
  409,
  `This link has as many readers as it can keep (${MAX_READERS_PER_LINK.toLocaleString('en')}): ask whoever shared it for a new link`,
) {}

/**
 * Room for one more reader at a link, or a 429 in words: the link's readers in all and this
 * hour, and the client's new ones lately (claimed first, then counted, so requests sent at once
 * cannot all pass the count; the claims go with THROTTLE's window).
 */
export const admitNewReader = async (
  deps: { store: Store },
  link: LinkByToken,
  clientAddress: string | null,
  now: Date,
) => {
  const db = deps.store.db;
  if ((await readersOfLink(db, link.link_id)) >= MAX_READERS_PER_LINK) {
    throw new LinkFull();
  }
  if (
    (await newReadersSince(db, link.link_id, new Date(now.getTime() - 3_600_000))) >=
    NEW_READERS_PER_HOUR
  ) {
    throw new AppError(429, 'This link has taken many new readers this hour: try again later', {
      'Retry-After': '600',
    });
  }
  if (!clientAddress) return;
  const subject = `link-readers:${link.link_id}@${senderKey(clientAddress)}`;
  const claim = randomUUID();
  await reserveAttempt(db, [subject], claim, now);
  const since = new Date(now.getTime() - THROTTLE.windowMs);
  // (old claims go as the throttle's do, now and then)
  if (Math.random() < 0.01) await pruneFailures(db, since);
  if (((await countFailures(db, [subject], since)).get(subject) ?? 0) > NEW_READERS_PER_CLIENT) {
    await releaseAttempt(db, claim);
    const minutes = THROTTLE.windowMs / 60_000;
    throw new AppError(
      429,
      `Many new readers came from your network to this link lately: try again in ${minutes} minutes`,
      { 'Retry-After': String(minutes * 60) },
    );
  }
};
