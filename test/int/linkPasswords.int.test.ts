// A share link's password in process (src/app/shareLinks.ts, readerAccess.ts; issue 40), on a
// real PostgreSQL (both stores) with the clock fixed:
// - wrong guesses are counted per (link, address), per link and per address, and a right password
//   clears none of them: a probe whose recipient typed the right one between guesses had 24
//   guesses checked in 5 s against the documented 5 in 15 minutes;
// - a password's hash goes with what it belonged to: the link revoked, the password replaced or
//   removed, the flipbook deleted; a refused change leaves none behind; leftovers are swept.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { THROTTLE, TooManyAttempts } from '../../src/app/accounts/throttle.ts';
import type { Caller } from '../../src/app/caller.ts';
import { deleteFlipbook } from '../../src/app/manageFlipbooks.ts';
import { type AccessDeps, openAccess, unlockLink } from '../../src/app/readerAccess.ts';
import { shareLinksOf } from '../../src/app/shareLinks.ts';
import { InvalidInput } from '../../src/domain/errors.ts';
import { bookInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { STORE_KINDS } from '../support/stores.ts';
import { useApiDeps } from '../support/useApiDeps.ts';

const RIGHT = 'correct horse 9';

describe.each(STORE_KINDS)('share link passwords (%s store)', (kind) => {
  let now = new Date('2026-03-04T05:06:07.000Z');
  const clock = { now: () => now };
  const deps = useApiDeps(kind, clock);
  let access: AccessDeps;
  beforeAll(async () => {
    access = await openAccess(deps.store, clock);
  });

  /** A flipbook of a workspace of its own, and the use cases of its links. */
  const book = async () => {
    const { workspaceId, flipbookId } = await bookInStore(deps.store, now);
    const caller: Caller = { workspaceId, plan: 'team', metadata: TEST_METADATA };
    return { caller, flipbookId, links: shareLinksOf(deps, caller, flipbookId) };
  };
  const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
  /** What a try at a link's password got: `in`, `wrong` (401) or `held` (429). */
  const attempt = async (token: string, password: string, address: string) => {
    try {
      await unlockLink(access, token, password, address);
      return 'in';
    } catch (error) {
      if (error instanceof TooManyAttempts) return 'held';
      if ((error as { status?: number }).status === 401) return 'wrong';
      throw error;
    }
  };
  const hashes = async (where = 'TRUE', params: unknown[] = []) =>
    (
      await deps.store.db.query<{ password_id: string }>(
        `SELECT password_id FROM link_passwords WHERE ${where} ORDER BY created_at`,
        params,
      )
    ).rows.map((r) => r.password_id);
  const passwordOf = async (linkId: string) =>
    (
      await deps.store.db.query<{ password_id: string | null }>(
        'SELECT password_id FROM share_links WHERE link_id = $1',
        [linkId],
      )
    ).rows[0]?.password_id ?? null;

  it('counts wrong guesses per (link, address) whatever right ones come between, and per link', async () => {
    const { links } = await book();
    const link = await links.create({ label: 'Jane', password: RIGHT });
    const token = tokenOf(link.url);
    // A guesser, and the recipient typing the right password after each guess.
    const guesser = '203.0.113.7';
    const recipient = '198.51.100.20';
    const outcomes: string[] = [];
    for (let i = 0; i < 24; i++) {
      outcomes.push(await attempt(token, `guess ${i}`, guesser));
      expect(await attempt(token, RIGHT, recipient)).toBe('in');
    }
    expect(outcomes.filter((o) => o === 'wrong')).toHaveLength(THROTTLE.perAccount);
    expect(outcomes.slice(THROTTLE.perAccount).every((o) => o === 'held')).toBe(true);
    // The guesser's own right password waits too; another address of its /64 is the same guesser.
    expect(await attempt(token, RIGHT, guesser)).toBe('held');
    expect(await attempt(token, 'guess', '2001:db8:1:2::1')).toBe('wrong');
    for (let i = 0; i < 4; i++) await attempt(token, 'guess', '2001:db8:1:2::1');
    expect(await attempt(token, 'guess', '2001:db8:1:2:ffff::9')).toBe('held');
    // The window over, the guesser may try again.
    now = new Date(now.getTime() + THROTTLE.windowMs + 1000);
    expect(await attempt(token, 'guess again', guesser)).toBe('wrong');

    // Guesses from many addresses together: the link's own ceiling, then 429 for everyone.
    const spread = await links.create({ label: 'Lee', password: RIGHT });
    const spreadToken = tokenOf(spread.url);
    let wrong = 0;
    for (let n = 0; wrong < THROTTLE.fromAllAddresses; n++) {
      for (let i = 0; i < THROTTLE.perAccount && wrong < THROTTLE.fromAllAddresses; i++) {
        expect(await attempt(spreadToken, `guess ${i}`, `192.0.2.${n}`)).toBe('wrong');
        wrong++;
      }
    }
    expect(await attempt(spreadToken, 'one more', '198.51.100.99')).toBe('held');
    expect(await attempt(spreadToken, RIGHT, recipient)).toBe('held');
    now = new Date(now.getTime() + THROTTLE.windowMs + 1000);
    expect(await attempt(spreadToken, RIGHT, recipient)).toBe('in');
  });

  it('deletes a hash with its link, its replacement, its flipbook; a refused change keeps none', async () => {
    const { caller, flipbookId, links } = await book();
    const link = await links.create({ label: 'Jane', password: RIGHT });
    const first = await passwordOf(link.id);
    expect(await hashes('link_id = $1', [link.id])).toEqual([first]);
    // Replaced: only the new one is kept; removed: none.
    await links.edit(link.id, { password: 'another one 2' });
    const second = await passwordOf(link.id);
    expect(second).not.toBe(first);
    expect(await hashes('link_id = $1', [link.id])).toEqual([second]);
    await links.edit(link.id, { password: null });
    expect(await hashes('link_id = $1', [link.id])).toEqual([]);
    await links.edit(link.id, { password: 'a third one 3' });
    expect(await hashes('link_id = $1', [link.id])).toHaveLength(1);
    // A change refused after the password was hashed (the date is past): no hash of it stays.
    await expect(
      links.edit(link.id, { password: 'refused one 4', expires_at: '2020-01-01T00:00:00Z' }),
    ).rejects.toThrow(InvalidInput);
    expect(await hashes('link_id = $1', [link.id])).toEqual([await passwordOf(link.id)]);
    const before = await hashes();
    await expect(
      links.create({ label: 'Refused', password: RIGHT, expires_at: '2020-01-01T00:00:00Z' }),
    ).rejects.toThrow(InvalidInput);
    expect(await hashes()).toEqual(before);
    // Revoked: its hash goes.
    await links.revoke(link.id);
    expect(await hashes('link_id = $1', [link.id])).toEqual([]);
    // The flipbook deleted: every link's hash goes.
    const kept = await Promise.all(
      ['A', 'B'].map((label) => links.create({ label, password: RIGHT })),
    );
    await deleteFlipbook(deps, caller, flipbookId);
    expect(await hashes('link_id = ANY($1::uuid[])', [kept.map((l) => l.id)])).toEqual([]);
  });

  it('sweeps hashes no link names once a day old, never one on its way to its event', async () => {
    const { links } = await book();
    const old = randomUUID();
    const young = randomUUID();
    // As a build that kept every hash left them, or a process that died before the event.
    for (const [id, at] of [
      [old, new Date(now.getTime() - 25 * 3_600_000)],
      [young, new Date(now.getTime() - 3_600_000)],
    ] as const) {
      await deps.store.db.query(
        `INSERT INTO link_passwords (password_id, link_id, hash, created_at)
         VALUES ($1, $2, 'x', $3)`,
        [id, randomUUID(), at],
      );
    }
    const link = await links.create({ label: 'Jane', password: RIGHT });
    expect(await hashes('password_id = ANY($1::uuid[])', [[old, young]])).toEqual([young]);
    expect(await attempt(tokenOf(link.url), RIGHT, '198.51.100.20')).toBe('in');
  });
});
