// Wrong secrets are throttled per account and per client address: a sign-in's password, the
// current password a signed-in person confirms before changing it (a session left open must
// not let anyone guess the password at leisure), and a share link's password (the link is the
// account). The counts live in `sign_in_failures`.
//
// An attempt is counted as wrong before its secret is checked, and taken back when it proves
// right: counting after the check let forty guesses sent at once all pass the check while none
// of them was counted yet (an argon2 run takes tens of milliseconds). Counted first, the n-th
// attempt sees at least n rows, whatever the order the database runs them in.
//
// A share link's password is counted per (link, address), per link and per address, and a right
// one clears nothing (issue 40): a right password used to clear the link's count, so a guesser
// whose recipient typed it between tries had 24 guesses checked in 5 s against the documented 5 in
// 15 minutes. Counted per (link, address), one guesser cannot lock the recipient out either; the
// link's own ceiling bounds guesses from many addresses together.
import { randomUUID } from 'node:crypto';
import {
  clearFailures,
  countFailures,
  pruneFailures,
  releaseAttempt,
  reserveAttempt,
} from '../../../projections/accounts.ts';
import { senderKey } from '../../domain/analytics/senderKey.ts';
import { AppError } from '../../domain/errors.ts';
import type { Store } from '../../store/store.ts';

/**
 * Wrong attempts allowed in the window: per account and per client address; for a share link,
 * `perAccount` per (link, address) and `perLink` from every address together.
 */
export const THROTTLE = { windowMs: 15 * 60_000, perAccount: 5, perAddress: 30, perLink: 50 };

export class TooManyAttempts extends AppError {
  override name = 'TooManyAttempts';
  constructor(minutes: number) {
    super(
      429,
      `Too many wrong attempts: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
      { 'Retry-After': String(minutes * 60) },
    );
  }
}

/**
 * Who an attempt counts against: the account (`email:<address>` for a person, none for a
 * passkey, which names no account until it is verified; `link:<id>` for a share link), and the
 * client's address when known.
 */
export type Attempt = {
  account: string | null;
  address: string | null;
  /**
   * Whose count the address's tries go to: sign-ins' (the default) or share links' passwords, so
   * that guessing at links from an office's one address does not lock its people out of the
   * dashboard.
   */
  pool?: 'links';
};

export const personAccount = (email: string) => `email:${email}`;
export const linkAccount = (linkId: string) => `link:${linkId}`;

/**
 * Whose tries an address's are: for a link's password an IPv6 address's /64 (one subscriber's
 * network), so rotating addresses within it is one guesser still.
 */
const addressSubject = ({ address, pool }: Attempt) =>
  address ? (pool === 'links' ? `link-ip:${senderKey(address)}` : `ip:${address}`) : null;

/** The counts an attempt goes to, each with the wrong attempts it allows in the window. */
const subjectsOf = (attempt: Attempt): [subject: string, allowed: number][] => {
  const address = addressSubject(attempt);
  const byAddress: [string, number][] = address ? [[address, THROTTLE.perAddress]] : [];
  if (attempt.account === null) return byAddress;
  if (attempt.pool !== 'links') return [[attempt.account, THROTTLE.perAccount], ...byAddress];
  return [
    [
      `${attempt.account}@${attempt.address ? senderKey(attempt.address) : '-'}`,
      THROTTLE.perAccount,
    ],
    [attempt.account, THROTTLE.perLink],
    ...byAddress,
  ];
};

/** An attempt under way: `right` when its secret proved right; a wrong one stays counted. */
export type Claim = { right: () => Promise<void> };

/**
 * Counts an attempt against its account and address, or throws TooManyAttempts (429) when
 * either has used up its window (a refused attempt is not counted: it checked nothing).
 */
export const claimAttempt = async (store: Store, attempt: Attempt, now: Date): Promise<Claim> => {
  const limits = subjectsOf(attempt);
  const subjects = limits.map(([subject]) => subject);
  const id = randomUUID();
  if (subjects.length > 0) await reserveAttempt(store.db, subjects, id, now);
  const counts = await countFailures(
    store.db,
    subjects,
    new Date(now.getTime() - THROTTLE.windowMs),
  );
  if (limits.some(([subject, allowed]) => (counts.get(subject) ?? 0) > allowed)) {
    await releaseAttempt(store.db, id);
    throw new TooManyAttempts(Math.ceil(THROTTLE.windowMs / 60_000));
  }
  // Old failures are of no use to the throttle: dropped now and then.
  if (Math.random() < 0.01) {
    await pruneFailures(store.db, new Date(now.getTime() - THROTTLE.windowMs));
  }
  return {
    // A right secret takes its attempt back. A person's sign-in also clears the account's count
    // (not the address's: it may be shared); a link's password clears nothing, its wrong tries
    // being counted per address.
    right: async () => {
      await releaseAttempt(store.db, id);
      if (attempt.account !== null && attempt.pool !== 'links') {
        await clearFailures(store.db, attempt.account);
      }
    },
  };
};
