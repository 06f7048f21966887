// API keys through the use cases the admin CLI and the dashboard call, on the embedded store: the
// list (fingerprint, created by, last used, status), last used surviving a replay, rolls with and
// without grace, revocation refused at the next request, and the Team plan rule. "Last used" is
// written at every use here (keyUsageIntervalMs 0). The whole app in process
// (test/support/appSpec.ts); what the CLI prints and a second daemon shows is
// test/e2e/apiKeysCli.e2e.test.ts's. Tests run in order and build on each other's keys.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, listApiKeys, revokeApiKey, rollApiKey } from '../../src/app/apiKeys.ts';
import type { EventMetadata } from '../../src/app/eventContext.ts';
import { longWork } from '../../src/store/databaseLimits.ts';
import { rebuildReadTables } from '../../src/store/replay.ts';
import { type AppUnderTest, startApp } from '../support/appSpec.ts';
import { appFetch } from '../support/inProcess.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { waitFor } from '../support/waitFor.ts';

const TEAM_ONLY =
  'API keys are available on the Team plan only; workspace "hobby" is on the free plan';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** an admin's metadata, as `--as <name>` gives it */
const as = (id: string): EventMetadata => ({ actor: { type: 'admin', id } });

describe('API keys on the embedded store', () => {
  let app: AppUnderTest;
  beforeAll(async () => {
    app = await startApp({ store: 'embedded', keyUsageIntervalMs: 0 });
  });
  afterAll(() => app?.stop());

  const now = () => app.clock.now();
  const list = (workspace = 'acme') => listApiKeys(app.store, workspace, now());
  const keyById = async (id: string, workspace = 'acme') => {
    const found = (await list(workspace)).find((k) => k.id === id);
    if (!found) throw new Error(`key ${id} not listed`);
    return found;
  };
  /** The status of one authenticated API call with the key. */
  const call = async (key: string) =>
    (await appFetch(`${app.api}/flipbooks`, { headers: { authorization: `Bearer ${key}` } }))
      .status;
  const create = (input: { label?: string; expiresInMs?: number } = {}, metadata = TEST_METADATA) =>
    issueApiKey(app.store, { workspace: 'acme', ...input }, metadata, now());
  const roll = (id: string, graceMs: number) =>
    rollApiKey(app.store, { keyId: id, graceMs }, as('dora'), now());
  const revoke = (id: string) => revokeApiKey(app.store, { keyId: id }, TEST_METADATA, now());

  it('lists fingerprint, who created the key, when, its expiry and "never used"', async () => {
    const before = now().getTime();
    const made = await create({ label: 'ci', expiresInMs: 30 * DAY }, as('carol'));
    const key = await keyById(made.id);
    expect(key).toMatchObject({
      label: 'ci',
      fingerprint: sha256(made.key).slice(0, 8),
      created_by: { type: 'admin', id: 'carol' },
      last_used_at: null,
      status: 'active',
      revoked_at: null,
      valid_until: null,
      rolled_from: null,
      rolled_to: null,
    });
    const expires = Date.parse(key.expires_at ?? '');
    expect(expires).toBeGreaterThan(before + 30 * DAY - 2000);
    expect(expires).toBeLessThan(now().getTime() + 30 * DAY + 1000);

    // The harness's key, first in the list, made by the test's admin.
    const [first] = await list();
    expect(first?.fingerprint).toBe(sha256(app.key).slice(0, 8));
    expect(first?.created_by).toEqual({ type: 'admin', id: 'test' });
  });

  it('sets "last used" after one API call, and keeps it across a replay', async () => {
    const made = await create({ label: 'usage' });
    expect((await keyById(made.id)).last_used_at).toBeNull();
    app.clock.advance(60_000);
    const before = now().getTime();
    expect(await call(made.key)).toBe(200);
    // Written off the request's path: it lands just after the answer.
    const lastUsed = await waitFor('last_used_at', async () => {
      const at = (await keyById(made.id)).last_used_at;
      return at === null ? undefined : at;
    });
    expect(Date.parse(lastUsed)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(lastUsed)).toBeLessThanOrEqual(now().getTime());

    await longWork(app.store.pool, rebuildReadTables);
    const after = await keyById(made.id);
    expect(after.last_used_at).toBe(lastUsed);
    // ... and the rest of the row, rebuilt from the events, is as it was
    expect(after).toMatchObject({ label: 'usage', fingerprint: sha256(made.key).slice(0, 8) });
    expect(after.created_by).toEqual({ type: 'admin', id: 'test' });
  });

  it('rolls with no grace: the old key is refused at once, the new one works', async () => {
    const old = await create({ label: 'deploy', expiresInMs: 90 * DAY });
    expect(await call(old.key)).toBe(200);
    app.clock.advance(DAY); // the new key's lifetime is counted from the roll
    const rolled = await roll(old.id, 0);
    expect(rolled.rolled_from).toBe(old.id);
    expect(rolled.key).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(await call(old.key)).toBe(401);
    expect(await call(rolled.key)).toBe(200);

    const oldRow = await keyById(old.id);
    expect(oldRow).toMatchObject({ status: 'expired', rolled_to: rolled.id });
    const newRow = await keyById(rolled.id);
    expect(newRow).toMatchObject({
      label: 'deploy',
      status: 'active',
      rolled_from: old.id,
      created_by: { type: 'admin', id: 'dora' },
      fingerprint: sha256(rolled.key).slice(0, 8),
    });
    // the same 90-day lifetime, counted from the roll
    const lifetime = Date.parse(newRow.expires_at ?? '') - Date.parse(newRow.created_at);
    expect(Math.abs(lifetime - 90 * DAY)).toBeLessThanOrEqual(1000);
    expect(Date.parse(newRow.expires_at ?? '')).toBeGreaterThan(Date.parse(old.expires_at ?? ''));

    await expect(roll(old.id, HOUR)).rejects.toThrow(/already rolled/);
  });

  it('rolls with a grace of an hour: both keys work, the list says until when', async () => {
    const old = await create({ label: 'nightly' });
    const before = now().getTime();
    const rolled = await roll(old.id, HOUR);
    expect(await call(old.key)).toBe(200);
    expect(await call(rolled.key)).toBe(200);
    const oldRow = await keyById(old.id);
    expect(oldRow.status).toBe('rolled');
    const until = Date.parse(oldRow.valid_until ?? '');
    expect(until).toBeGreaterThan(before + HOUR - 2000);
    expect(until).toBeLessThanOrEqual(now().getTime() + HOUR);
    expect(Date.parse(rolled.old_key_valid_until)).toBeGreaterThanOrEqual(until);

    // A key in its grace can still be revoked: refused at once.
    await revoke(old.id);
    expect(await call(old.key)).toBe(401);
    expect(await call(rolled.key)).toBe(200);
  });

  it('revokes: the next request is refused, and the list says revoked', async () => {
    const made = await create({ label: 'leaked' });
    expect(await call(made.key)).toBe(200);
    await revoke(made.id);
    expect(await call(made.key)).toBe(401);
    const row = await keyById(made.id);
    expect(row.status).toBe('revoked');
    expect(row.revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    await expect(roll(made.id, 0)).rejects.toThrow(/revoked/);
  });

  it('outside the Team plan, refuses creating and rolling alike; list and revoke still work', async () => {
    const hobby = await app.newWorkspace('hobby', 'free'); // its key was made on the Team plan
    const [existing] = await list('hobby');
    if (!existing) throw new Error('the free workspace has no key');
    expect(existing.status).toBe('active');
    expect(await call(hobby.key)).toBe(200);

    await expect(
      issueApiKey(app.store, { workspace: 'hobby' }, TEST_METADATA, now()),
    ).rejects.toThrow(TEAM_ONLY);
    await expect(roll(existing.id, HOUR)).rejects.toThrow(TEAM_ONLY);
    expect(await list('hobby')).toHaveLength(1);

    await revoke(existing.id);
    expect(await call(hobby.key)).toBe(401);
    expect((await keyById(existing.id, 'hobby')).status).toBe('revoked');
  });
});
