// A person's password in process (src/app/accounts/sessions.ts, people.ts; issue 40), on a real
// PostgreSQL (both stores) with the clock fixed: wrong passwords are counted per (account,
// address), per account and per address; a right one clears only its own (account, address)
// pair. A right password used to clear the account's whole count, so with the owner signing in
// between guesses from elsewhere, one address had 30 wrong passwords checked against the
// documented 5 in 15 minutes, and many addresses had no bound at all.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvitation, changePassword, inviteUser } from '../../src/app/accounts/people.ts';
import { signInWithPassword } from '../../src/app/accounts/sessions.ts';
import { THROTTLE, TooManyAttempts } from '../../src/app/accounts/throttle.ts';
import type { Store } from '../../src/store/store.ts';
import { workspaceInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { openTestStore, STORE_KINDS } from '../support/stores.ts';

const RIGHT = 'correct horse 9';
const CONTEXT = { request_id: 'test' };

describe.each(STORE_KINDS)('sign-in throttle (%s store)', (kind) => {
  let store: Store;
  let now = new Date('2026-03-04T05:06:07.000Z');
  const clock = { now: () => now };
  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(async () => {
    await store?.close();
  });

  /** A member of a workspace of their own, with the password RIGHT. */
  const person = async () => {
    const workspace = await workspaceInStore(store, 'team', now);
    const email = `p-${randomUUID().slice(0, 8)}@example.com`;
    const { token } = await inviteUser(
      store,
      { workspaceId: workspace.id, email, role: 'owner' },
      TEST_METADATA,
      clock,
    );
    const { id } = await acceptInvitation(store, { token, password: RIGHT }, CONTEXT, clock);
    return { email, userId: id };
  };
  /** What a sign-in got: `in`, `wrong` (401) or `held` (429). */
  const signIn = async (email: string, password: string, address: string) => {
    try {
      await signInWithPassword(store, { email, password, address }, CONTEXT, clock);
      return 'in';
    } catch (error) {
      if (error instanceof TooManyAttempts) return 'held';
      if ((error as { status?: number }).status === 401) return 'wrong';
      throw error;
    }
  };
  const pastTheWindow = () => {
    now = new Date(now.getTime() + THROTTLE.windowMs + 1000);
  };

  it('counts a guesser’s wrong passwords whatever the owner’s right ones between them', async () => {
    const { email } = await person();
    const guesser = '203.0.113.7';
    const owner = '198.51.100.20';
    const outcomes: string[] = [];
    for (let i = 0; i < 40; i++) {
      outcomes.push(await signIn(email, `guess number ${i}`, guesser));
      expect(await signIn(email, RIGHT, owner)).toBe('in');
    }
    expect(outcomes.filter((o) => o === 'wrong')).toHaveLength(THROTTLE.perAccount);
    expect(outcomes.slice(THROTTLE.perAccount).every((o) => o === 'held')).toBe(true);
    // The guesser's right password waits too (nothing it sent proved right), and so do its
    // guesses at another account: its address is held only at this one (5 < 30).
    expect(await signIn(email, RIGHT, guesser)).toBe('held');
    expect(await signIn((await person()).email, 'a guess', guesser)).toBe('wrong');
    pastTheWindow();
    expect(await signIn(email, 'guess again', guesser)).toBe('wrong');
  });

  it('bounds guesses at one account from many addresses together, the owner’s sign-ins between', async () => {
    const { email } = await person();
    const owner = '198.51.100.21';
    const addresses = 12;
    const outcomes: string[] = [];
    for (let n = 0; n < addresses; n++) {
      for (let i = 0; i < THROTTLE.perAccount; i++) {
        outcomes.push(await signIn(email, `guess ${i}`, `192.0.2.${n}`));
        // The owner signs in after each guess, until the account is held for everyone.
        const wrong = outcomes.filter((o) => o === 'wrong').length;
        expect(await signIn(email, RIGHT, owner)).toBe(
          wrong < THROTTLE.fromAllAddresses ? 'in' : 'held',
        );
      }
    }
    expect(outcomes.filter((o) => o === 'wrong')).toHaveLength(THROTTLE.fromAllAddresses);
    expect(outcomes.slice(THROTTLE.fromAllAddresses).every((o) => o === 'held')).toBe(true);
    pastTheWindow();
    expect(await signIn(email, RIGHT, owner)).toBe('in');
  });

  it('lets the owner in past a guesser elsewhere, and forgets their own typos once they get in', async () => {
    const { email, userId } = await person();
    const owner = '198.51.100.22';
    for (let i = 0; i < 10; i++) await signIn(email, `guess ${i}`, '203.0.113.8');
    expect(await signIn(email, RIGHT, owner)).toBe('in');
    // Four typos, then in: the pair's count starts again, so four more typos still let them in.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < THROTTLE.perAccount - 1; i++) {
        expect(await signIn(email, `typo ${round} ${i}`, owner)).toBe('wrong');
      }
      expect(await signIn(email, RIGHT, owner)).toBe('in');
    }
    // The profile page's current password counts the same way: five wrong from one address,
    // then even the right one waits there.
    const change = (current: string, address: string) =>
      changePassword(
        store,
        { userId, sessionId: randomUUID(), current, next: 'another fine secret 7', address },
        { ...CONTEXT, actor: { type: 'user', id: userId, email } },
        clock,
      );
    const session = '198.51.100.23';
    for (let i = 0; i < THROTTLE.perAccount; i++) {
      await expect(change(`wrong current ${i}`, session)).rejects.toThrow('not right');
    }
    await expect(change(RIGHT, session)).rejects.toThrow(TooManyAttempts);
    expect(await signIn(email, RIGHT, owner)).toBe('in');
  });
});
