// Wrong secrets are throttled per account and per client address: a sign-in's password, the
// current password a signed-in person confirms before changing it (a session left open must
// not let anyone guess the password at leisure), and a share link's password (the link is the
// account). The counts live in `sign_in_failures`.
import {
  clearFailures,
  countFailures,
  pruneFailures,
  recordFailure,
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
export type Attempt = { account: string | null; address: string | null };

export const personAccount = (email: string) => `email:${email}`;
export const linkAccount = (linkId: string) => `link:${linkId}`;

const subjectsOf = ({ account, address }: Attempt) => [
  ...(account !== null ? [account] : []),
  ...(address ? [`ip:${address}`] : []),
];

/** Throws TooManyAttempts (429) while the account or the address has used up its window. */
export const refuseIfThrottled = async (store: Store, attempt: Attempt, now: Date) => {
  const since = new Date(now.getTime() - THROTTLE.windowMs);
  const counts = await countFailures(store.db, subjectsOf(attempt), since);
  if (
    (attempt.account !== null && (counts.get(attempt.account) ?? 0) >= THROTTLE.perAccount) ||
    (attempt.address && (counts.get(`ip:${attempt.address}`) ?? 0) >= THROTTLE.perAddress)
  ) {
    throw new TooManyAttempts(Math.ceil(THROTTLE.windowMs / 60_000));
  }
};

export const noteWrongAttempt = async (store: Store, attempt: Attempt, now: Date) => {
  const subjects = subjectsOf(attempt);
  if (subjects.length > 0) await recordFailure(store.db, subjects, now);
  // Old failures are of no use to the throttle: dropped now and then.
  if (Math.random() < 0.01) {
    await pruneFailures(store.db, new Date(now.getTime() - THROTTLE.windowMs));
  }
};

/** A right secret clears the account's count (not the address's: it may be shared). */
export const noteRightAttempt = async (store: Store, attempt: Attempt) => {
  if (attempt.account !== null) await clearFailures(store.db, attempt.account);
};
