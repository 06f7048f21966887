// Readers' sealed identities (src/app/readerIdentity.ts, src/state/readerKeys.ts) on a real
// PostgreSQL: an address sealed opens again until its reader is erased, and never after, while
// the events that hold it keep their bytes and the audit chain still verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../src/app/audit.ts';
import type { Clock } from '../../src/app/clock.ts';
import { installationSecret } from '../../src/app/readerAccess.ts';
import {
  forgetReader,
  kidOf,
  openEmail,
  type ReaderIdentityDeps,
  sealEmail,
} from '../../src/app/readerIdentity.ts';
import { InvalidInput } from '../../src/domain/errors.ts';
import type { SealedEmail } from '../../src/domain/readerEmail.ts';
import { longWork } from '../../src/store/databaseLimits.ts';
import { rebuildReadTables } from '../../src/store/replay.ts';
import type { Store } from '../../src/store/store.ts';
import { createInStore, workspaceInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { openTestStore } from '../support/stores.ts';
import { useApiDeps } from '../support/useApiDeps.ts';

const NOW = new Date('2026-12-05T10:00:00.000Z');
const clock: Clock = { now: () => NOW };

/** A fresh address per test: every test has readers of its own on the suite's database. */
let n = 0;
const fresh = (domain = 'example.com') => `reader${++n}.${Date.now()}@${domain}`;

describe('readers’ sealed identities', () => {
  const api = useApiDeps('postgres', clock);
  let deps: ReaderIdentityDeps;
  beforeAll(async () => {
    deps = { store: api.store, clock, secret: await installationSecret(api.store) };
  });

  const keyRow = async (kid: string) =>
    (
      await api.store.db.query<{ key: Buffer; created_at: Date }>(
        'SELECT key, created_at FROM reader_keys WHERE kid = $1',
        [kid],
      )
    ).rows[0] ?? null;

  /** Every way the address could show in clear: as text, and in the ct's bytes. */
  const expectNoAddress = (sealed: SealedEmail, address: string) => {
    const local = address.split('@')[0] as string;
    expect(JSON.stringify(sealed).toLowerCase()).not.toContain(local.toLowerCase());
    const bytes = Buffer.from(sealed.ct, 'base64url');
    expect(bytes.includes(Buffer.from(address))).toBe(false);
    expect(bytes.includes(Buffer.from(local))).toBe(false);
  };

  it('seals an address that opens again; the address is nowhere in what an event keeps', async () => {
    const address = fresh();
    const sealed = await sealEmail(deps, address);
    expect(Object.keys(sealed).sort()).toEqual(['ct', 'kid']);
    expect(sealed.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sealed.ct).toMatch(/^[A-Za-z0-9_-]+$/);
    expectNoAddress(sealed, address);
    expect(await openEmail(deps, sealed)).toBe(address);
    // the reader's key, dated by the clock, 32 bytes
    const row = await keyRow(sealed.kid);
    expect(row?.key).toHaveLength(32);
    expect(row?.created_at.toISOString()).toBe(NOW.toISOString());
    // sealed again: the same kid and key, another ct (a random IV: two events cannot be matched
    // by their ct), which opens too
    const again = await sealEmail(deps, address);
    expect(again.kid).toBe(sealed.kid);
    expect(again.ct).not.toBe(sealed.ct);
    expect(await openEmail(deps, again)).toBe(address);
    expect((await keyRow(sealed.kid))?.key.equals(row?.key as Buffer)).toBe(true);
  });

  it('gives one reader one kid however the address is cased, and opens it as it was typed', async () => {
    const address = fresh('Bücher.Example');
    const kid = kidOf(deps, address);
    const shouted = address.replace('reader', 'READER').replace('Bücher.Example', 'BÜCHER.example');
    const sealed = await sealEmail(deps, shouted);
    expect(sealed.kid).toBe(kid);
    expect(kidOf(deps, ` ${address.toUpperCase()} `)).toBe(kid);
    // the domain as mail needs it, the local part as this seal was given it
    expect(await openEmail(deps, sealed)).toBe(
      shouted.replace('BÜCHER.example', 'xn--bcher-kva.example'),
    );
    expect(() => kidOf(deps, 'not an address')).toThrow(InvalidInput);
    await expect(sealEmail(deps, 'a@b@c.org')).rejects.toThrow(
      'the address is not an email address: it has more than one @',
    );
  });

  it('gives two readers two kids and two keys; a ct moved under another kid does not open', async () => {
    const [one, two] = await Promise.all([sealEmail(deps, fresh()), sealEmail(deps, fresh())]);
    expect(one.kid).not.toBe(two.kid);
    const [keyOne, keyTwo] = await Promise.all([keyRow(one.kid), keyRow(two.kid)]);
    expect(keyOne?.key.equals(keyTwo?.key as Buffer)).toBe(false);
    expect(await openEmail(deps, { kid: two.kid, ct: one.ct })).toBeNull();
    // a ct changed by one bit does not open either (the tag holds)
    const bytes = Buffer.from(one.ct, 'base64url');
    bytes[14] = (bytes[14] as number) ^ 1;
    expect(await openEmail(deps, { kid: one.kid, ct: bytes.toString('base64url') })).toBeNull();
    expect(await openEmail(deps, { kid: one.kid, ct: 'short' })).toBeNull();
  });

  it('makes one key for a reader first sealed by many at once', async () => {
    const address = fresh();
    const sealed = await Promise.all(Array.from({ length: 8 }, () => sealEmail(deps, address)));
    expect(new Set(sealed.map((s) => s.kid)).size).toBe(1);
    const { rows } = await api.store.db.query('SELECT 1 FROM reader_keys WHERE kid = $1', [
      sealed[0]?.kid,
    ]);
    expect(rows).toHaveLength(1);
    for (const s of sealed) expect(await openEmail(deps, s)).toBe(address);
  });

  it('forgets a reader: nothing sealed for them opens again, not even once sealed anew', async () => {
    const address = fresh();
    const before = await sealEmail(deps, address);
    const other = await sealEmail(deps, fresh());
    const oldKey = (await keyRow(before.kid))?.key as Buffer;
    // erasure asked for with another spelling of the address
    expect(await forgetReader(deps, address.toUpperCase())).toBe(true);
    expect(await keyRow(before.kid)).toBeNull();
    expect(await openEmail(deps, before)).toBeNull();
    // idempotent: a second erasure finds nothing and says so
    expect(await forgetReader(deps, address)).toBe(false);
    // another reader is untouched
    expect(await openEmail(deps, other)).not.toBeNull();
    // the reader comes back: a new key under the same kid; their old events stay unreadable
    const after = await sealEmail(deps, address);
    expect(after.kid).toBe(before.kid);
    expect((await keyRow(after.kid))?.key.equals(oldKey)).toBe(false);
    expect(await openEmail(deps, after)).toBe(address);
    expect(await openEmail(deps, before)).toBeNull();
  });

  it('keeps an event holding a sealed reader verifiable in the audit chain after the erasure', async () => {
    const address = fresh();
    const sealed = await sealEmail(deps, address);
    // A real event of a real flipbook stream, through the command path that chains it: the
    // reader rides in its metadata, as the trail's fields do (no event type carries one yet).
    const { id: workspaceId } = await workspaceInStore(api.store, 'team', NOW);
    const metadata = { ...TEST_METADATA, reader: sealed };
    const { flipbookId } = await createInStore(
      api.store,
      { workspaceId, title: 'Board pack', slug: `board-${n}`, now: NOW },
      metadata,
    );
    const stored = async () =>
      (
        await api.store.db.query<{ data: string; metadata: string; meta: { reader: unknown } }>(
          `SELECT message_data::text AS data, message_metadata::text AS metadata,
             message_metadata AS meta
           FROM emt_messages WHERE stream_id = $1 ORDER BY stream_position`,
          [`flipbook-${flipbookId}`],
        )
      ).rows;
    const rows = await stored();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.meta.reader).toEqual(sealed);
      expect(`${row.data}${row.metadata}`).not.toContain(address);
    }
    expect(await verifyChain(api.store)).toMatchObject({ intact: true });

    expect(await forgetReader(deps, address)).toBe(true);
    // a replay rebuilds read tables, never a key: the reader stays erased
    await longWork(api.store.pool, rebuildReadTables);
    expect(await keyRow(sealed.kid)).toBeNull();

    const later = await stored();
    expect(later.map((row) => row.metadata)).toEqual(rows.map((row) => row.metadata));
    for (const row of later) {
      expect(await openEmail(deps, row.meta.reader as SealedEmail)).toBeNull();
    }
    expect(await verifyChain(api.store)).toMatchObject({ intact: true });
  });

  describe('on another installation', () => {
    let other: Store;
    beforeAll(async () => {
      other = await openTestStore('postgres');
    });
    afterAll(async () => {
      await other?.close();
    });

    it('gives the same reader another kid, and opens nothing sealed here', async () => {
      const otherDeps = { store: other, clock, secret: await installationSecret(other) };
      expect(otherDeps.secret).not.toBe(deps.secret);
      const address = fresh();
      const here = await sealEmail(deps, address);
      const there = await sealEmail(otherDeps, address);
      expect(there.kid).not.toBe(here.kid);
      expect(kidOf(otherDeps, address)).toBe(there.kid);
      expect(await openEmail(otherDeps, here)).toBeNull();
      expect(await openEmail(otherDeps, there)).toBe(address);
    });
  });
});
