// The event-sourced core on both stores: commands append events, inline projections fill the
// read tables in the same transaction, concurrency is serialised per stream, replay rebuilds.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, listApiKeys, revokeApiKey } from '../../src/app/apiKeys.ts';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { flipbookEvents } from '../../src/app/eventLog.ts';
import { createWorkspace, listWorkspaces } from '../../src/app/workspaces.ts';
import { hashApiKey } from '../../src/domain/apiKey.ts';
import { Conflict, RuleBroken } from '../../src/domain/errors.ts';
import type { UploadedFile } from '../../src/domain/flipbook/flipbook.ts';
import { rebuildReadTables } from '../../src/store/replay.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { markDone } from '../support/apiHelpers.ts';
import { createInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { openTestStore, STORE_KINDS, storeOptions } from '../support/stores.ts';

const file = (name = 'brochure.pdf'): UploadedFile => ({
  name,
  type: 'pdf',
  mimeType: 'application/pdf',
  size: 1234,
  checksum: 'ab'.repeat(32),
});

describe.each(STORE_KINDS)('event-sourced core on the %s store', (kind) => {
  let store: Store;
  let workspaceId: string;

  beforeAll(async () => {
    store = await openTestStore(kind);
    workspaceId = (
      await createWorkspace(store, { name: 'acme', plan: 'team' }, TEST_METADATA, new Date())
    ).id;
  });
  afterAll(() => store?.close());

  const newFlipbook = () =>
    createInStore(store, {
      workspaceId,
      title: 'Spring catalogue',
      slug: 'spring',
      file: file(),
    });

  const processVersion = (flipbookId: string, versionId: string, pages = 2) =>
    markDone(store, flipbookId, versionId, pages);

  const upload = async (flipbookId: string, activateOnDone = false) => {
    const versionId = randomUUID();
    await runFlipbookCommand(
      store,
      flipbookId,
      {
        type: 'UploadVersion',
        data: { versionId, file: file('v.pdf'), activateOnDone, now: new Date() },
      },
      TEST_METADATA,
    );
    return versionId;
  };

  it('refuses a second workspace with the same name', async () => {
    await expect(
      createWorkspace(store, { name: 'acme', plan: 'free' }, TEST_METADATA, new Date()),
    ).rejects.toBeInstanceOf(Conflict);
    expect((await listWorkspaces(store)).map((w) => w.name)).toEqual(['acme']);
  });

  it('issues keys on the team plan, keeps only their hash, lists and revokes them', async () => {
    const issued = await issueApiKey(
      store,
      {
        workspace: 'acme',
        label: 'ci',
        expires: '2099-01-01',
      },
      TEST_METADATA,
      new Date(),
    );
    expect(issued.key).toMatch(/^svc_[0-9a-f]{48}$/);
    const { rows } = await store.pool.query('SELECT key_hash FROM api_keys WHERE key_id = $1', [
      issued.id,
    ]);
    expect(rows[0].key_hash).toBe(hashApiKey(issued.key));
    const all = JSON.stringify(await store.pool.query('SELECT * FROM api_keys'));
    expect(all).not.toContain(issued.key);
    const events = JSON.stringify(
      (await store.pool.query('SELECT message_data FROM emt_messages')).rows,
    );
    expect(events).not.toContain(issued.key);

    const listed = await listApiKeys(store, 'acme', new Date());
    expect(listed.find((k) => k.id === issued.id)).toMatchObject({
      label: 'ci',
      expires_at: '2099-01-01T00:00:00Z',
      revoked_at: null,
    });
    await revokeApiKey(store, { keyId: issued.id }, TEST_METADATA, new Date());
    const after = await listApiKeys(store, 'acme', new Date());
    expect(after.find((k) => k.id === issued.id)?.revoked_at).not.toBeNull();
  });

  it('refuses keys for a workspace on the free plan', async () => {
    await createWorkspace(store, { name: 'hobby', plan: 'free' }, TEST_METADATA, new Date());
    await expect(
      issueApiKey(store, { workspace: 'hobby' }, TEST_METADATA, new Date()),
    ).rejects.toThrow(/Team plan/);
  });

  it('shows a write in the read tables at once (inline projections)', async () => {
    const { flipbookId, versionId } = await newFlipbook();
    const { rows } = await store.pool.query(
      'SELECT f.title, v.number, v.status, v.workspace_id FROM flipbooks f JOIN versions v USING (flipbook_id) WHERE f.flipbook_id = $1',
      [flipbookId],
    );
    expect(rows).toEqual([
      { title: 'Spring catalogue', number: 1, status: 'pending', workspace_id: workspaceId },
    ]);
    const job = await store.pool.query('SELECT workspace_id FROM jobs WHERE version_id = $1', [
      versionId,
    ]);
    expect(job.rows).toEqual([{ workspace_id: workspaceId }]);
  });

  it('activates on done, atomically, and records the pages', async () => {
    const { flipbookId, versionId } = await newFlipbook();
    await processVersion(flipbookId, versionId, 3);
    const version = await store.pool.query(
      'SELECT status, is_active, page_count FROM versions WHERE version_id = $1',
      [versionId],
    );
    expect(version.rows).toEqual([{ status: 'done', is_active: true, page_count: 3 }]);
    const pages = await store.pool.query(
      'SELECT position FROM pages WHERE version_id = $1 ORDER BY position',
      [versionId],
    );
    expect(pages.rows.map((r) => r.position)).toEqual([1, 2, 3]);
    const jobs = await store.pool.query('SELECT 1 FROM jobs WHERE version_id = $1', [versionId]);
    expect(jobs.rowCount).toBe(0);
  });

  it('gives gapless version numbers to concurrent uploads', async () => {
    const { flipbookId } = await newFlipbook();
    await Promise.all(Array.from({ length: 8 }, () => upload(flipbookId)));
    const { rows } = await store.pool.query(
      'SELECT number FROM versions WHERE flipbook_id = $1 ORDER BY number',
      [flipbookId],
    );
    expect(rows.map((r) => r.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('leaves exactly one active version after concurrent activations', async () => {
    const { flipbookId, versionId } = await newFlipbook();
    await processVersion(flipbookId, versionId);
    const others = await Promise.all(Array.from({ length: 6 }, () => upload(flipbookId)));
    for (const id of others) await processVersion(flipbookId, id);
    await Promise.all(
      others.map((id) =>
        runFlipbookCommand(
          store,
          flipbookId,
          {
            type: 'ActivateVersion',
            data: { versionId: id, now: new Date() },
          },
          TEST_METADATA,
        ),
      ),
    );
    const { rows } = await store.pool.query(
      'SELECT version_id FROM versions WHERE flipbook_id = $1 AND is_active',
      [flipbookId],
    );
    expect(rows).toHaveLength(1);
    const book = await store.pool.query(
      'SELECT active_version_id FROM flipbooks WHERE flipbook_id = $1',
      [flipbookId],
    );
    expect(book.rows[0].active_version_id).toBe(rows[0].version_id);
  });

  it('refuses to delete the active version and deletes an inactive one with its pages', async () => {
    const { flipbookId, versionId } = await newFlipbook();
    await processVersion(flipbookId, versionId);
    await expect(
      runFlipbookCommand(
        store,
        flipbookId,
        {
          type: 'DeleteVersion',
          data: { versionId, now: new Date() },
        },
        TEST_METADATA,
      ),
    ).rejects.toBeInstanceOf(RuleBroken);
    const second = await upload(flipbookId);
    await processVersion(flipbookId, second);
    await runFlipbookCommand(
      store,
      flipbookId,
      {
        type: 'DeleteVersion',
        data: { versionId: second, now: new Date() },
      },
      TEST_METADATA,
    );
    const left = await store.pool.query('SELECT version_id FROM versions WHERE flipbook_id = $1', [
      flipbookId,
    ]);
    expect(left.rows.map((r) => r.version_id)).toEqual([versionId]);
    const pages = await store.pool.query('SELECT 1 FROM pages WHERE version_id = $1', [second]);
    expect(pages.rowCount).toBe(0);
  });

  it("lists a flipbook's events in order with their time", async () => {
    const { flipbookId, versionId } = await newFlipbook();
    await processVersion(flipbookId, versionId);
    const events = await flipbookEvents(store, flipbookId);
    expect(events.map((e) => e.type)).toEqual([
      'FlipbookCreated',
      'VersionUploaded',
      'VersionProcessed',
      'VersionActivated',
    ]);
    expect(events.map((e) => e.position)).toEqual([1, 2, 3, 4]);
    for (const e of events) expect(e.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(events.every((e) => e.data.workspaceId === workspaceId)).toBe(true);
  });

  it('rebuilds read tables by replay that equal the live ones', async () => {
    const before = await dumpReadTables(store);
    const client = await store.pool.connect();
    const report = await rebuildReadTables(client).finally(() => client.release());
    expect(report.events).toBeGreaterThan(20);
    const after = await dumpReadTables(store);
    expect(after).toEqual(before);
    expect(Object.values(after).every((rows) => Array.isArray(rows))).toBe(true);
    expect(after.versions?.length).toBeGreaterThan(10);
  });
});

describe.each(STORE_KINDS)('schema on the %s store', (kind) => {
  it('is created safely by several processes starting at once, and kept on restart', async () => {
    const options = await storeOptions(kind);
    const stores = await Promise.all([openStore(options), openStore(options), openStore(options)]);
    await createWorkspace(
      stores[0] as Store,
      { name: 'first', plan: 'team' },
      TEST_METADATA,
      new Date(),
    );
    for (const s of stores) expect((await listWorkspaces(s)).map((w) => w.name)).toEqual(['first']);
    await Promise.all(stores.map((s) => s.close()));
    const again = await openStore(options);
    expect((await listWorkspaces(again)).map((w) => w.name)).toEqual(['first']);
    await again.close();
  });

  it('rebuilds the read tables on start when their version changed', async () => {
    const options = await storeOptions(kind);
    const first = await openStore(options);
    await createWorkspace(first, { name: 'kept', plan: 'free' }, TEST_METADATA, new Date());
    await first.pool.query("UPDATE flipbook_meta SET value = '0' WHERE key = 'read_model_version'");
    await first.pool.query('DELETE FROM workspaces');
    await first.close();
    const second = await openStore(options);
    expect((await listWorkspaces(second)).map((w) => w.name)).toEqual(['kept']);
    await second.close();
  });
});

const dumpReadTables = async (store: Store) => {
  const tables = ['workspaces', 'api_keys', 'flipbooks', 'versions', 'pages', 'jobs'];
  const dump: Record<string, unknown[]> = {};
  for (const table of tables) {
    const { rows } = await store.pool.query(`SELECT * FROM ${table}`);
    dump[table] = rows
      .map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)))
      .sort();
  }
  return dump;
};
