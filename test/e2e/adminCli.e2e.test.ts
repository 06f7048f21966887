// The admin CLI contract, end to end: the real `flipbook` binary against both stores, with and
// without a daemon running on the same store.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { openStore } from '../../src/store/store.ts';
import { flipbook, startDaemon } from '../support/cli.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { STORE_KINDS, storeOptions } from '../support/stores.ts';

const storeArgs = (options: { dataDir?: string; databaseUrl?: string }) =>
  options.dataDir ? ['--data-dir', options.dataDir] : ['--database-url', options.databaseUrl ?? ''];

describe('flipbook --help', () => {
  it('lists every command', async () => {
    const { code, stdout } = await flipbook(['--help']);
    expect(code).toBe(0);
    for (const command of ['serve', 'workspace', 'key', 'events', 'replay']) {
      expect(stdout).toContain(command);
    }
  });

  it('exits 2 on a usage error', async () => {
    const { code, stderr } = await flipbook(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command 'frobnicate'");
  });
});

describe.each(STORE_KINDS)('admin CLI on the %s store', (kind) => {
  it('manages workspaces and keys, with the daemon stopped and running', async () => {
    const store = storeArgs(await storeOptions(kind));

    // Daemon stopped: the command reaches the store by itself.
    const created = await flipbook(['workspace', 'create', 'acme', '--json', ...store]);
    expect(created.code).toBe(0);
    const workspace = JSON.parse(created.stdout);
    expect(workspace).toMatchObject({ name: 'acme', plan: 'team' });
    expect(workspace.id).toMatch(/^[0-9a-f-]{36}$/);

    const daemon = await startDaemon(store);
    try {
      // It says how long it took (a loaded machine's embedded server may take a while to accept
      // its first connection, which the daemon waits up to 30 s for: docs/deploy.md).
      expect(daemon.startupMs).toBeGreaterThan(0);
      expect(daemon.startupMs).toBeLessThan(35_000);
      // Daemon running: the same commands work against the same store.
      expect(
        (await flipbook(['workspace', 'create', 'hobby', '--plan', 'free', ...store])).code,
      ).toBe(0);
      const list = await flipbook(['workspace', 'list', '--json', ...store]);
      expect(JSON.parse(list.stdout).map((w: { name: string }) => w.name)).toEqual([
        'acme',
        'hobby',
      ]);

      const key = await flipbook([
        'key',
        'create',
        '--workspace',
        'acme',
        '--name',
        'ci',
        '--expires',
        '2099-12-31T00:00:00Z',
        '--json',
        ...store,
      ]);
      expect(key.code).toBe(0);
      const issued = JSON.parse(key.stdout);
      expect(Object.keys(issued).sort()).toEqual(['expires_at', 'id', 'key', 'workspace']);
      expect(issued.key).toMatch(/^svc_[0-9a-f]{48}$/);
      expect(issued.workspace).toBe('acme');
      expect(issued.expires_at).toBe('2099-12-31T00:00:00.000Z');

      const refused = await flipbook(['key', 'create', '--workspace', 'hobby', ...store]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/Team plan only/);

      const keys = await flipbook(['key', 'list', '--workspace', 'acme', '--json', ...store]);
      expect(keys.stdout).not.toContain(issued.key);
      expect(JSON.parse(keys.stdout)).toMatchObject([
        { id: issued.id, label: 'ci', revoked_at: null },
      ]);
      const plain = await flipbook(['key', 'list', '--workspace', 'acme', ...store]);
      expect(plain.stdout).toContain(issued.id);
      expect(plain.stdout).not.toContain(issued.key);

      expect((await flipbook(['key', 'revoke', issued.id, ...store])).code).toBe(0);
      const revoked = JSON.parse(
        (await flipbook(['key', 'list', '--workspace', 'acme', '--json', ...store])).stdout,
      );
      expect(revoked[0].revoked_at).toMatch(/^\d{4}-/);

      const unknown = await flipbook(['key', 'revoke', randomUUID(), ...store]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/No API key/);

      const health = await fetch(`${daemon.url}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }

    // The daemon has gone; what it and the commands wrote is still there.
    const after = await flipbook(['workspace', 'list', '--json', ...store]);
    expect(JSON.parse(after.stdout)).toHaveLength(2);
  });

  it('prints events and replays the read tables', async () => {
    const options = await storeOptions(kind);
    const store = storeArgs(options);
    const workspace = JSON.parse(
      (await flipbook(['workspace', 'create', 'acme', '--json', ...store])).stdout,
    );

    const flipbookId = randomUUID();
    const direct = await openStore(options);
    try {
      await runFlipbookCommand(
        direct,
        flipbookId,
        {
          type: 'CreateFlipbook',
          data: {
            flipbookId,
            workspaceId: workspace.id,
            title: 'Manual',
            slug: 'manual',
            description: '',
            versionId: randomUUID(),
            file: {
              name: 'm.pdf',
              type: 'pdf',
              mimeType: 'application/pdf',
              size: 10,
              checksum: '00'.repeat(32),
            },
            now: new Date(),
          },
        },
        TEST_METADATA,
      );
    } finally {
      await direct.close();
    }

    const json = await flipbook(['events', flipbookId, '--json', ...store]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).map((e: { type: string }) => e.type)).toEqual([
      'FlipbookCreated',
      'VersionUploaded',
    ]);
    const plain = await flipbook(['events', flipbookId, ...store]);
    expect(plain.stdout.trim().split('\n')).toHaveLength(2);
    expect(plain.stdout).toMatch(/^1\t\d{4}-\d\d-\d\dT[\d:.]+Z\tFlipbookCreated\t/);

    const missing = await flipbook(['events', randomUUID(), ...store]);
    expect(missing.code).toBe(1);

    const replay = await flipbook(['replay', '--json', ...store]);
    expect(replay.code).toBe(0);
    const report = JSON.parse(replay.stdout);
    expect(report.events).toBe(3); // WorkspaceCreated, FlipbookCreated, VersionUploaded
    expect(report.milliseconds).toBeGreaterThanOrEqual(0);
    const list = await flipbook(['workspace', 'list', '--json', ...store]);
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: workspace.id, name: 'acme' }]);
  });
});
