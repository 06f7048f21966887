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
// Wrong tries are counted per (account, address), per account from all addresses together and
// per address (issue 40). A right secret used to clear the account's count: with the recipient
// typing a link's password between tries a guesser had 24 guesses checked in 5 s against the
// documented 5 in 15 minutes, and with a person signing in between them one address had 30
// wrong passwords checked, many addresses no bound at all; and a guesser anywhere locked the
// person out after 5. Now one guesser cannot lock anyone out (only many addresses together can,
// for the window), and no one's right secret clears a guesser's count:
// - a link's right password clears nothing (it is simply not counted): a recipient types it once,
//   the grant does the rest;
// - a person's clears only its own (account, address) pair, the one that just proved itself, so
//   their own typos do not pile up over a day of sign-ins. A guesser behind the same address
//   (an office's) is still held by the address's and the account's counts, never cleared.
import { randomUUID } from 'node:crypto';
import { senderKey } from '../../domain/analytics/senderKey.ts';
import { AppError } from '../../domain/errors.ts';
import {
  clearFailures,
  countFailures,
  pruneFailures,
  releaseAttempt,
  reserveAttempt,
} from '../../state/accounts.ts';
import type { Store } from '../../store/store.ts';

/**
 * Wrong attempts allowed in the window: `perAccount` at an account (a person, a share link) from
 * one address, `fromAllAddresses` at it from every address together, `perAddress` from one
 * address at every account of its pool.
 */
export const THROTTLE = {
  windowMs: 15 * 60_000,
  perAccount: 5,
  fromAllAddresses: 50,
  perAddress: 30,
};

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

/** An account's tries from one address (an IPv6 address's /64, as for links' addresses). */
const pairOf = (account: string, address: string | null) =>
  `${account}@${address ? senderKey(address) : '-'}`;

/** The counts an attempt goes to, each with the wrong attempts it allows in the window. */
const subjectsOf = (attempt: Attempt): [subject: string, allowed: number][] => {
  const address = addressSubject(attempt);
  const byAddress: [string, number][] = address ? [[address, THROTTLE.perAddress]] : [];
  if (attempt.account === null) return byAddress;
  return [
    [pairOf(attempt.account, attempt.address), THROTTLE.perAccount],
    [attempt.account, THROTTLE.fromAllAddresses],
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
    // A right secret takes its attempt back. A person's also clears their (account, address)
    // pair, and nothing else: see the top of the file.
    right: async () => {
      await releaseAttempt(store.db, id);
      if (attempt.account !== null && attempt.pool !== 'links') {
        await clearFailures(store.db, pairOf(attempt.account, attempt.address));
      }
    },
  };
};
