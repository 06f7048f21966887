// A process killed on this host leaves its jobs leased; one starting here hands them back at once
// (src/worker/leaseOwner.ts): the leases of a pid no process has, or of an earlier life of this
// pid (a container restarted runs its daemon under the same pid). A live process's leases, this
// life's own and another host's wait for their lease to run out. Real PostgreSQL, real processes.
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../src/log.ts';
import type { Store } from '../../src/store/store.ts';
import { goneFromHere, leaseOwner, releaseGoneLeases } from '../../src/worker/leaseOwner.ts';
import { bookInStore } from '../support/inStore.ts';
import { openTestStore } from '../support/stores.ts';

let store: Store;
beforeAll(async () => {
  store = await openTestStore('postgres');
});
afterAll(async () => {
  await store?.close();
});

/** The pid of a process that has ended (and been reaped): no process has it now. */
const endedPid = async () => {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid as number;
};

/** A job leased for a minute to `owner`. */
const leasedJob = async (owner: string) => {
  const { versionId } = await bookInStore(store);
  await store.db.query(
    `UPDATE jobs SET lease_owner = $2, lease_until = now() + interval '1 minute', attempts = 1
     WHERE version_id = $1`,
    [versionId, owner],
  );
  return versionId;
};

const leaseOf = async (versionId: string) =>
  (
    await store.db.query<{ lease_owner: string | null; attempts: number }>(
      'SELECT lease_owner, attempts FROM jobs WHERE version_id = $1',
      [versionId],
    )
  ).rows[0];

describe('leases of processes gone from this host', () => {
  it('are handed back at once, the attempt still counted; the others are kept', async () => {
    const host = hostname();
    const sleeper = spawn('sleep', ['60']);
    try {
      const dead = await endedPid();
      const ours = leaseOwner();
      const cases = {
        killed: `${host}:${dead}@0badc0de`,
        killedBeforeLives: `${host}:${dead}`,
        earlierLife: `${host}:${process.pid}@0badc0de`,
        alive: `${host}:${sleeper.pid}@0badc0de`,
        ours,
        otherHost: `not-${host}:${dead}@0badc0de`,
      };
      const jobs = Object.fromEntries(
        await Promise.all(
          Object.entries(cases).map(async ([name, owner]) => [name, await leasedJob(owner)]),
        ),
      ) as Record<keyof typeof cases, string>;

      expect(await releaseGoneLeases(store.db, logger)).toBe(3);
      for (const name of ['killed', 'killedBeforeLives', 'earlierLife'] as const) {
        expect(await leaseOf(jobs[name]), name).toEqual({ lease_owner: null, attempts: 1 });
      }
      for (const name of ['alive', 'ours', 'otherHost'] as const) {
        expect((await leaseOf(jobs[name]))?.lease_owner, name).toBe(cases[name]);
      }
      expect(await releaseGoneLeases(store.db, logger)).toBe(0);
    } finally {
      sleeper.kill();
    }
  });

  it('reads an owner as host:pid[@life], and nothing else as one of ours', () => {
    const host = hostname();
    const alive = () => true;
    const dead = () => false;
    expect(goneFromHere(`${host}:4242`, dead)).toBe(true);
    expect(goneFromHere(`${host}:4242@ab12`, alive)).toBe(false);
    expect(goneFromHere(leaseOwner(), dead)).toBe(false);
    expect(goneFromHere(`${host}:${process.pid}`, dead)).toBe(false);
    for (const odd of ['', host, `${host}:`, `${host}:x`, `${host}:12@ZZ`, `other:${4242}`]) {
      expect(goneFromHere(odd, dead), odd).toBe(false);
    }
  });
});
