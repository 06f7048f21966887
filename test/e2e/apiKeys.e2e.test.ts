// API keys end to end on the embedded store, through the admin CLI the dashboard's use cases
// serve first: the list (fingerprint, created by, last used, status), last used surviving a
// replay, rolls with and without grace, revocation refused at once on every daemon, and the Team
// plan rule. "Last used" is written at every use here (FLIPBOOK_KEY_USAGE_INTERVAL_MS=0).
// Tests run in order and build on each other's keys.
import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { flipbook, startDaemon } from '../support/cli.ts';
import { waitFor } from '../support/waitFor.ts';

const TEAM_ONLY =
  'API keys are available on the Team plan only; workspace "hobby" is on the free plan';
const HOUR = 3_600_000;

type Listed = {
  id: string;
  label: string | null;
  fingerprint: string;
  created_by: { type: string; id?: string };
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  status: string;
  revoked_at: string | null;
  valid_until: string | null;
  rolled_from: string | null;
  rolled_to: string | null;
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('API keys on the embedded store', () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await startApi('embedded', [], { FLIPBOOK_KEY_USAGE_INTERVAL_MS: '0' });
  });
  afterAll(() => fx?.stop());

  const cli = (args: string[]) => flipbook([...args, ...fx.storeArgs]);
  const list = async (workspace = 'acme'): Promise<Listed[]> => {
    const listed = await cli(['key', 'list', '--workspace', workspace, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    return JSON.parse(listed.stdout);
  };
  const keyById = async (id: string, workspace = 'acme') => {
    const found = (await list(workspace)).find((k) => k.id === id);
    if (!found) throw new Error(`key ${id} not listed`);
    return found;
  };
  /** The status of one authenticated API call with the key. */
  const call = async (key: string, url = fx.api) =>
    (await fetch(`${url}/flipbooks`, { headers: { authorization: `Bearer ${key}` } })).status;
  const create = async (args: string[] = []) => {
    const made = await cli(['key', 'create', '--workspace', 'acme', '--json', ...args]);
    expect(made.code, made.stderr).toBe(0);
    return JSON.parse(made.stdout) as { id: string; key: string; expires_at: string | null };
  };
  const roll = async (id: string, grace: string) => {
    const rolled = await cli(['key', 'roll', id, '--grace', grace, '--json', '--as', 'dora']);
    expect(rolled.code, rolled.stderr).toBe(0);
    return JSON.parse(rolled.stdout) as {
      id: string;
      key: string;
      rolled_from: string;
      old_key_valid_until: string;
    };
  };

  it('lists fingerprint, who created the key, when, its expiry and "never used"', async () => {
    const before = Date.now();
    const made = await create(['--name', 'ci', '--expires-in', '30d', '--as', 'carol']);
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
    expect(expires).toBeGreaterThan(before + 30 * 24 * HOUR - 2000);
    expect(expires).toBeLessThan(Date.now() + 30 * 24 * HOUR + 1000);

    // The fixture's key was made by `key create` without --as: the OS user.
    const [first] = await list();
    expect(first?.fingerprint).toBe(sha256(fx.key).slice(0, 8));
    expect(first?.created_by).toEqual({ type: 'admin', id: userInfo().username });

    const table = await cli(['key', 'list', '--workspace', 'acme']);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+FINGERPRINT\s+CREATED BY\s+CREATED AT\s+EXPIRES/);
    expect(table.stdout).toContain(sha256(made.key).slice(0, 8));
    expect(table.stdout).toContain('admin:carol');
    expect(table.stdout).toMatch(/never\s+active/);
    expect(table.stdout).not.toContain(made.key);
  });

  it('refuses --expires with --expires-in, and an --expires-in that is not a duration', async () => {
    const alone = await cli(['key', 'create', '--workspace', 'acme', '--expires', '2099-01-01']);
    expect(alone.code).toBe(0); // --expires alone still works
    const clash = await cli([
      'key',
      'create',
      '--workspace',
      'acme',
      '--expires',
      '2099-01-01',
      '--expires-in',
      '30d',
    ]);
    expect(clash.code).toBe(2);
    const bad = await cli(['key', 'create', '--workspace', 'acme', '--expires-in', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--expires-in/);
  });

  it('sets "last used" after one API call, and keeps it across a replay', async () => {
    const made = await create(['--name', 'usage']);
    expect((await keyById(made.id)).last_used_at).toBeNull();
    const before = Date.now();
    expect(await call(made.key)).toBe(200);
    // Written off the request's path: it lands just after the answer.
    const lastUsed = await waitFor('last_used_at', async () => {
      const at = (await keyById(made.id)).last_used_at;
      return at === null ? undefined : at;
    });
    expect(Date.parse(lastUsed)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(lastUsed)).toBeLessThanOrEqual(Date.now());

    const replay = await cli(['replay', '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    const after = await keyById(made.id);
    expect(after.last_used_at).toBe(lastUsed);
    // ... and the rest of the row, rebuilt from the events, is as it was
    expect(after).toMatchObject({ label: 'usage', fingerprint: sha256(made.key).slice(0, 8) });
    expect(after.created_by).toEqual({ type: 'admin', id: userInfo().username });
  });

  it('rolls with no grace: the old key is refused at once, the new one works', async () => {
    const old = await create(['--name', 'deploy', '--expires-in', '90d']);
    expect(await call(old.key)).toBe(200);
    const rolled = await roll(old.id, '0');
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
    expect(Math.abs(lifetime - 90 * 24 * HOUR)).toBeLessThanOrEqual(1000);

    const again = await cli(['key', 'roll', old.id, '--grace', '1h']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already rolled/);
  });

  it('rolls with a grace of an hour: both keys work, the list says until when', async () => {
    const old = await create(['--name', 'nightly']);
    const before = Date.now();
    const rolled = await roll(old.id, '1h');
    expect(await call(old.key)).toBe(200);
    expect(await call(rolled.key)).toBe(200);
    const oldRow = await keyById(old.id);
    expect(oldRow.status).toBe('rolled');
    const until = Date.parse(oldRow.valid_until ?? '');
    expect(until).toBeGreaterThan(before + HOUR - 2000);
    expect(until).toBeLessThanOrEqual(Date.now() + HOUR);
    expect(Date.parse(rolled.old_key_valid_until)).toBeGreaterThanOrEqual(until);

    const table = await cli(['key', 'list', '--workspace', 'acme']);
    expect(table.stdout).toContain(`rolled until ${oldRow.valid_until}`);

    // A key in its grace can still be revoked: refused at once.
    expect((await cli(['key', 'revoke', old.id])).code).toBe(0);
    expect(await call(old.key)).toBe(401);
    expect(await call(rolled.key)).toBe(200);
  });

  it('revokes: the next request is refused, on every daemon, and the list says revoked', async () => {
    const made = await create(['--name', 'leaked']);
    const second = await startDaemon([...fx.storeArgs, '--workers', '0']);
    try {
      const otherApi = `${second.url}/api/v1`;
      expect(await call(made.key)).toBe(200);
      expect(await call(made.key, otherApi)).toBe(200);
      const revoked = await cli(['key', 'revoke', made.id]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(await call(made.key)).toBe(401);
      expect(await call(made.key, otherApi)).toBe(401);
    } finally {
      await second.stop();
    }
    const row = await keyById(made.id);
    expect(row.status).toBe('revoked');
    expect(row.revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await cli(['key', 'list', '--workspace', 'acme'])).stdout).toMatch(
      new RegExp(`${made.id}.*revoked`),
    );
    const rollRevoked = await cli(['key', 'roll', made.id, '--grace', '0']);
    expect(rollRevoked.code).toBe(1);
    expect(rollRevoked.stderr).toMatch(/revoked/);
  });

  it('outside the Team plan, refuses creating and rolling alike; list and revoke still work', async () => {
    const hobby = await fx.newWorkspace('hobby', 'free'); // its key was made on the Team plan
    const [existing] = await list('hobby');
    if (!existing) throw new Error('the free workspace has no key');
    expect(existing.status).toBe('active');
    expect(await call(hobby.key)).toBe(200);

    const created = await cli(['key', 'create', '--workspace', 'hobby']);
    expect(created.code).toBe(1);
    expect(created.stderr.trim()).toBe(`flipbook: ${TEAM_ONLY}`);
    const rolled = await cli(['key', 'roll', existing.id, '--grace', '1h']);
    expect(rolled.code).toBe(1);
    expect(rolled.stderr.trim()).toBe(`flipbook: ${TEAM_ONLY}`);
    expect(await list('hobby')).toHaveLength(1);

    expect((await cli(['key', 'revoke', existing.id])).code).toBe(0);
    expect(await call(hobby.key)).toBe(401);
    expect((await keyById(existing.id, 'hobby')).status).toBe('revoked');
  });
});
