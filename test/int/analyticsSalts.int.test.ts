// The salt of the day readers are hashed under (src/app/analytics/salts.ts), on a real
// PostgreSQL: one per day for every daemon on the database, and gone once its day is over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dailySalts } from '../../src/app/analytics/salts.ts';
import type { Store } from '../../src/store/store.ts';
import { openTestStore } from '../support/stores.ts';

describe('the salt of the day', () => {
  let store: Store;
  let now = new Date('2026-11-28T23:59:59Z');
  const clock = { now: () => now };
  beforeAll(async () => {
    store = await openTestStore('postgres');
  });
  afterAll(async () => {
    await store?.close();
  });
  const days = async () =>
    (
      await store.db.query<{ day: string }>(
        "SELECT to_char(day, 'YYYY-MM-DD') AS day FROM analytics_salts ORDER BY day",
      )
    ).rows.map((row) => row.day);

  it('is one for every daemon in a day, a new one the next day, the old one deleted', async () => {
    const [one, two] = [dailySalts(store, clock), dailySalts(store, clock)];
    const [a, b] = await Promise.all([one.today(), two.today()]);
    expect(a).toHaveLength(32);
    expect(b.equals(a)).toBe(true);
    expect(await days()).toEqual(['2026-11-28']);
    // after midnight (UTC): another salt, and yesterday's is gone from the database
    now = new Date('2026-11-29T00:00:01Z');
    const next = await two.today();
    expect(next.equals(a)).toBe(false);
    expect(await days()).toEqual(['2026-11-29']);
    // the other daemon, still holding yesterday's in memory, takes today's too
    expect((await one.today()).equals(next)).toBe(true);
  });
});
