// Wrong secrets are throttled per account and per client address: a sign-in's password, the
// current password a signed-in person confirms before changing it (a session left open must
// not let anyone guess the password at leisure), and a share link's password (the link is the
// account). The counts live in `sign_in_failures`.
//
// An attempt is counted as wrong before its secret is checked, and taken back when it proves
// right: counting after the check let forty guesses sent at once all pass the check while none
// of them was counted yet (an argon2 run takes tens of milliseconds). Counted first, the n-th
// attempt sees at least n rows, whatever the order the database runs them in.
import { randomUUID } from 'node:crypto';
import {
  clearFailures,
  countFailures,
  pruneFailures,
  releaseAttempt,
  reserveAttempt,
} from '../../../projections/accounts.ts';
import { AppError } from '../../domain/errors.ts';
import type { Store } from '../../store/store.ts';

/** Wrong attempts allowed in the window, per account and per client address. */
export const THROTTLE = { windowMs: 15 * 60_000, perAccount: 5, perAddress: 30 };

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

const addressSubject = ({ address, pool }: Attempt) =>
  address ? `${pool === 'links' ? 'link-ip' : 'ip'}:${address}` : null;

const subjectsOf = (attempt: Attempt) => {
  const address = addressSubject(attempt);
  return [...(attempt.account !== null ? [attempt.account] : []), ...(address ? [address] : [])];
};

/** An attempt under way: `right` when its secret proved right; a wrong one stays counted. */
export type Claim = { right: () => Promise<void> };

/**
 * Counts an attempt against its account and address, or throws TooManyAttempts (429) when
 * either has used up its window (a refused attempt is not counted: it checked nothing).
 */
export const claimAttempt = async (store: Store, attempt: Attempt, now: Date): Promise<Claim> => {
  const subjects = subjectsOf(attempt);
  const id = randomUUID();
  if (subjects.length > 0) await reserveAttempt(store.db, subjects, id, now);
  const counts = await countFailures(
    store.db,
    subjects,
    new Date(now.getTime() - THROTTLE.windowMs),
  );
  const address = addressSubject(attempt);
  if (
    (attempt.account !== null && (counts.get(attempt.account) ?? 0) > THROTTLE.perAccount) ||
    (address && (counts.get(address) ?? 0) > THROTTLE.perAddress)
  ) {
    await releaseAttempt(store.db, id);
    throw new TooManyAttempts(Math.ceil(THROTTLE.windowMs / 60_000));
  }
  // Old failures are of no use to the throttle: dropped now and then.
  if (Math.random() < 0.01) {
    await pruneFailures(store.db, new Date(now.getTime() - THROTTLE.windowMs));
  }
  return {
    // A right secret takes its attempt back and clears the account's count (not the address's:
    // it may be shared).
    right: async () => {
      await releaseAttempt(store.db, id);
      if (attempt.account !== null) await clearFailures(store.db, attempt.account);
    },
  };
};
