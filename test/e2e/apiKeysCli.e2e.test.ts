// API keys through the admin CLI as an operator runs it, on the embedded store: what `key list`
// prints, who a key was made by (`--as`, or the OS user), the flags it refuses, its exit codes and
// messages, and a revocation refused at once on every daemon. What the use cases decide (the
// list's fields, last used, rolls, revocation, the Team plan rule) is
// test/spec/apiKeys.spec.test.ts's.
import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { flipbook, startDaemon } from '../support/cli.ts';

const TEAM_ONLY =
  'API keys are available on the Team plan only; workspace "hobby" is on the free plan';

type Listed = { id: string; created_by: { type: string; id?: string }; fingerprint: string };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('API keys through the CLI, on the embedded store', () => {
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
  /** The status of one authenticated API call with the key. */
  const call = async (key: string, url = fx.api) =>
    (await fetch(`${url}/flipbooks`, { headers: { authorization: `Bearer ${key}` } })).status;
  const create = async (args: string[] = []) => {
    const made = await cli(['key', 'create', '--workspace', 'acme', '--json', ...args]);
    expect(made.code, made.stderr).toBe(0);
    return JSON.parse(made.stdout) as { id: string; key: string; expires_at: string | null };
  };

  it('prints the list as a table; --as names who made a key, the OS user otherwise', async () => {
    const made = await create(['--name', 'ci', '--expires-in', '30d', '--as', 'carol']);
    const listed = await list();
    expect(listed.find((k) => k.id === made.id)?.created_by).toEqual({
      type: 'admin',
      id: 'carol',
    });
    // The fixture's key was made by `key create` without --as: the OS user.
    const [first] = listed;
    expect(first?.fingerprint).toBe(sha256(fx.key).slice(0, 8));
    expect(first?.created_by).toEqual({ type: 'admin', id: userInfo().username });

    const table = await cli(['key', 'list', '--workspace', 'acme']);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+FINGERPRINT\s+CREATED BY\s+CREATED AT\s+EXPIRES/);
    expect(table.stdout).toContain(sha256(made.key).slice(0, 8));
    expect(table.stdout).toContain('admin:carol');
    expect(table.stdout).toMatch(/never\s+active/);
    expect(table.stdout).not.toContain(made.key);

    // A roll's grace and a revocation, as the table says them; a second roll exits 1.
    const rolled = await cli(['key', 'roll', made.id, '--grace', '1h', '--json', '--as', 'dora']);
    expect(rolled.code, rolled.stderr).toBe(0);
    const validUntil = (await cli(['key', 'list', '--workspace', 'acme', '--json'])).stdout;
    const until = (JSON.parse(validUntil) as { id: string; valid_until: string }[]).find(
      (k) => k.id === made.id,
    )?.valid_until;
    expect((await cli(['key', 'list', '--workspace', 'acme'])).stdout).toContain(
      `rolled until ${until}`,
    );
    const again = await cli(['key', 'roll', made.id, '--grace', '1h']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already rolled/);
    const revoked = await create(['--name', 'leaked']);
    expect((await cli(['key', 'revoke', revoked.id])).code).toBe(0);
    expect((await cli(['key', 'list', '--workspace', 'acme'])).stdout).toMatch(
      new RegExp(`${revoked.id}.*revoked`),
    );
    const rollRevoked = await cli(['key', 'roll', revoked.id, '--grace', '0']);
    expect(rollRevoked.code).toBe(1);
    expect(rollRevoked.stderr).toMatch(/revoked/);
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

  it('revokes: the next request is refused on every daemon', async () => {
    const made = await create(['--name', 'leaked everywhere']);
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
  });

  it('outside the Team plan, says so and exits 1 for create and roll', async () => {
    await fx.newWorkspace('hobby', 'free');
    const [existing] = await list('hobby');
    if (!existing) throw new Error('the free workspace has no key');
    const created = await cli(['key', 'create', '--workspace', 'hobby']);
    expect(created.code).toBe(1);
    expect(created.stderr.trim()).toBe(`flipbook: ${TEAM_ONLY}`);
    const rolled = await cli(['key', 'roll', existing.id, '--grace', '1h']);
    expect(rolled.code).toBe(1);
    expect(rolled.stderr.trim()).toBe(`flipbook: ${TEAM_ONLY}`);
  });
});
