// A log written by the previous version of the code (commit 96b04d6, before the audit trail) met
// by this one, on both stores: it verifies, reads with unknown actors and null fields (never an
// error), replays, and new events appended after it carry their metadata and verify too.
//
// The fixture (test/fixtures/pre-audit-log.json) is the event rows that version wrote: its daemon
// and admin CLI ran on a fresh data directory (workspace, key, upload processed by its worker, a
// second version activated, the first deleted), then emt_messages, emt_streams and flipbook_meta
// were dumped. Running the old code here would take a second checkout and minutes; instead each
// test database is put into the state that code left:
// - Emmett's schema is the same (both pin Emmett 0.42.0), so this code's first open creates it;
// - the old database had no audit tables: they are dropped, so the migration must start the
//   chain over the old events, as it would on an upgrade;
// - the read tables are dropped and flipbook_meta says read model 2, as the old code left it, so
//   the migration must rebuild them from the old events (their old shape never matters: a
//   different read model version is always dropped and rebuilt);
// - the event rows go in as dumped, global positions included (the sequence moved past them);
//   only transaction_id is this database's own (xid8 values mean nothing across clusters).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTables } from '../../src/readTables/index.ts';
import { openStore } from '../../src/store/store.ts';
import { client, expectJson, type Json, pdf, SMALL_PDF } from '../support/apiHelpers.ts';
import { type Daemon, flipbook, ROOT, startDaemon } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import { UNKNOWN_METADATA } from '../support/metadata.ts';
import { STORE_KINDS, storeOptions } from '../support/stores.ts';

type Row = Record<string, unknown>;
const fixture = JSON.parse(
  readFileSync(join(ROOT, 'test/fixtures/pre-audit-log.json'), 'utf8'),
) as {
  workspace: { name: string; id: string };
  key: { id: string; key: string };
  flipbookId: string;
  meta: { key: string; value: string }[];
  streams: Row[];
  messages: (Row & {
    stream_id: string;
    message_id: string;
    message_type: string;
    message_data: { occurredAt: string };
  })[];
};

/** A fresh database in the state the code before the audit trail left it (see above). */
const oldDatabase = async (options: { dataDir?: string; databaseUrl?: string }) => {
  const store = await openStore({ ...options, poolSize: 2 });
  try {
    const q = (sql: string, params: unknown[] = []) => store.pool.query(sql, params);
    await q('DROP TABLE audit_chain, audit_head');
    for (const table of readTables) await q(`DROP TABLE IF EXISTS ${table.table} CASCADE`);
    await q('DELETE FROM flipbook_meta');
    for (const { key, value } of fixture.meta) {
      await q('INSERT INTO flipbook_meta (key, value) VALUES ($1, $2)', [key, value]);
    }
    await q('DELETE FROM emt_messages');
    await q('DELETE FROM emt_streams');
    for (const s of fixture.streams) {
      await q(
        `INSERT INTO emt_streams (stream_id, stream_position, partition, stream_type, stream_metadata, is_archived)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          s.stream_id,
          s.stream_position,
          s.partition,
          s.stream_type,
          s.stream_metadata,
          s.is_archived,
        ],
      );
    }
    for (const m of fixture.messages) {
      await q(
        `INSERT INTO emt_messages (stream_id, stream_position, partition, message_kind, message_data,
           message_metadata, message_schema_version, message_type, message_id, is_archived,
           global_position, transaction_id, created)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, pg_current_xact_id(), $12)`,
        [
          m.stream_id,
          m.stream_position,
          m.partition,
          m.message_kind,
          m.message_data,
          m.message_metadata,
          m.message_schema_version,
          m.message_type,
          m.message_id,
          m.is_archived,
          m.global_position,
          m.created,
        ],
      );
    }
    await q(
      "SELECT setval('emt_global_message_position', (SELECT max(global_position) FROM emt_messages))",
    );
  } finally {
    await store.close();
  }
};

const jsonLines = (text: string): Json[] =>
  text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));

describe.each(STORE_KINDS)('a log from before the audit trail, on the %s store', (kind) => {
  let storeArgs: string[];
  let daemon: Daemon;
  const admin = async (args: string[]) => {
    const result = await flipbook([...args, ...storeArgs]);
    expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
    return result.stdout;
  };
  const api = () => client(`${daemon.url}/api/v1`, fixture.key.key);
  const flipbookStream = `flipbook-${fixture.flipbookId}`;
  const oldInStream = fixture.messages.filter((m) => m.stream_id === flipbookStream);

  beforeAll(async () => {
    const options = await storeOptions(kind);
    storeArgs = options.dataDir
      ? ['--data-dir', options.dataDir]
      : ['--database-url', options.databaseUrl ?? ''];
    await oldDatabase(options);
    // This code starts on it: the migration chains the old events and rebuilds the read tables.
    daemon = await startDaemon([
      ...storeArgs,
      ...['--blob-dir', await tempDataDir(), '--workers', '0'],
    ]);
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('verifies: the old events were chained once, in log order', async () => {
    const verified = JSON.parse(await admin(['audit', 'verify', '--json']));
    expect(verified).toMatchObject({ intact: true, events: fixture.messages.length });
    const exported = jsonLines(await admin(['audit', 'export']));
    expect(exported.map((e) => e.id)).toEqual(fixture.messages.map((m) => m.message_id));
    let previous = '0'.repeat(64);
    for (const e of exported) {
      expect(e.metadata).toEqual({});
      const { stream, position, id, type, data, metadata } = e;
      previous = createHash('sha256')
        .update(`${previous}\n${canonicalize({ stream, position, id, type, data, metadata })}`)
        .digest('hex');
      expect(e.hash).toBe(previous);
    }
  });

  it('reads the old events with an unknown actor and null fields, over HTTP and the CLI', async () => {
    // The old key still works: the rebuilt api_keys table came from the old ApiKeyIssued.
    const reply = await api().get(`/flipbooks/${fixture.flipbookId}/events`);
    expectJson(reply, 200);
    expect(reply.body.events.map((e: Json) => e.type)).toEqual(
      oldInStream.map((m) => m.message_type),
    );
    for (const event of reply.body.events) expect(event.metadata).toEqual(UNKNOWN_METADATA);
    expect(reply.body.events[0].at).toBe(oldInStream[0]?.message_data.occurredAt);

    const events = JSON.parse(await admin(['events', fixture.flipbookId, '--json']));
    expect(events.map((e: Json) => e.metadata)).toEqual(oldInStream.map(() => UNKNOWN_METADATA));
    expect(await admin(['events', fixture.flipbookId])).toContain('\tunknown\t');

    const log = jsonLines(
      await admin(['audit', 'log', '--workspace', fixture.workspace.name, '--json']),
    );
    expect(log).toHaveLength(fixture.messages.length);
    for (const event of log) expect(event.metadata).toEqual(UNKNOWN_METADATA);
    expect(await admin(['audit', 'log', '--workspace', fixture.workspace.name])).toContain(
      'unknown',
    );

    // The flipbook now, and as it was before its second version existed.
    const now = await api().flipbook(fixture.flipbookId);
    expectJson(now, 200);
    expect(now.body.title).toBe('Old brochure');
    expect(now.body.versions.map((v: Json) => [v.version, v.is_active])).toEqual([[2, true]]);
    const firstActive = oldInStream.find((m) => m.message_type === 'VersionActivated');
    const then = await api().get(
      `/flipbooks/${fixture.flipbookId}?at=${firstActive?.message_data.occurredAt}`,
    );
    expectJson(then, 200);
    expect(then.body.versions.map((v: Json) => [v.version, v.status, v.is_active])).toEqual([
      [1, 'done', true],
    ]);
    expect(then.body.pages).toHaveLength(3);
  });

  it('replays, and new events after the old ones carry metadata and verify', async () => {
    const replayed = JSON.parse(await admin(['replay', '--json']));
    expect(replayed.events).toBe(fixture.messages.length);

    const upload = await api().addVersion(fixture.flipbookId, pdf(SMALL_PDF), { activate: 'no' });
    expectJson(upload, 201);
    await admin(['key', 'create', '--workspace', fixture.workspace.name, '--as', 'auditor-bob']);

    const log = jsonLines(
      await admin(['audit', 'log', '--workspace', fixture.workspace.name, '--json']),
    );
    const added = log.slice(fixture.messages.length);
    expect(added.map((e) => [e.type, e.metadata.actor])).toEqual([
      ['VersionUploaded', { type: 'api_key', id: fixture.key.id, name: null }],
      ['ApiKeyIssued', { type: 'admin', id: 'auditor-bob' }],
    ]);
    expect(added[0].metadata.request_id).toBe(upload.headers.get('x-request-id'));
    expect(added[0].position).toBe(oldInStream.length + 1);

    const verified = JSON.parse(await admin(['audit', 'verify', '--json']));
    expect(verified).toMatchObject({ intact: true, events: fixture.messages.length + 2 });
  });
});
