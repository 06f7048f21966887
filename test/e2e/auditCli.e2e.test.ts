// The audit trail from the CLI as a user runs it, on the embedded store (what `flipbook serve`
// runs on unless told): `events` showing who did what as the HTTP trail does, admins recorded
// (--as NAME, or the operating-system user), `show --at`, `audit log` and its filters, and the
// hash chain: verify on an intact log, after an edited, a reordered and a deleted stream
// (re-chained by someone holding the database, which only a checkpoint catches), `audit export`
// checked here with node:crypto and by docs/audit.md's Python script, and `replay` leaving the read
// tables and the chain as they were. Nothing here differs between the stores (the chain and its
// checks are the same SQL on both), so it runs on one. The daemon runs with --no-client-info: the
// flag is checked here, what is recorded with and without it over HTTP (request ids, clients, the
// paged trail, ?at=) is test/spec/audit.spec.test.ts's.
// Tests run in order and build on each other's flipbooks; the destructive ones come last.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTables } from '../../src/readTables/index.ts';
import { chainExisting } from '../../src/state/auditChain.ts';
import type { Store } from '../../src/store/store.ts';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import {
  type Client,
  client,
  createFlipbook,
  expectJson,
  type Json,
  openStoreOf,
  waitDone,
} from '../support/apiHelpers.ts';
import {
  PROCESSING,
  trailActivated,
  trailOf,
  typesBesideProgress,
  uploadReport,
} from '../support/auditTrail.ts';
import { type CliResult, flipbook, ROOT } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';

const GENESIS = '0'.repeat(64);

const run = (command: string, args: string[], input?: string): Promise<CliResult> =>
  new Promise((done) => {
    const child = execFile(command, args, { cwd: ROOT, timeout: 30_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input ?? '');
  });

type Exported = {
  seq: number;
  stream: string;
  position: number;
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded: string;
  hash: string;
};

const jsonLines = <T = Json>(text: string): T[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);

/** docs/audit.md's algorithm, recomputed here with node:crypto and RFC 8785 JSON. */
const recomputeChain = (lines: Exported[]) => {
  let previous = GENESIS;
  lines.forEach((line, index) => {
    expect(line.seq).toBe(index + 1);
    const { stream, position, id, type, data, metadata } = line;
    const entry = canonicalize({ stream, position, id, type, data, metadata });
    previous = createHash('sha256').update(`${previous}\n${entry}`).digest('hex');
    expect(line.hash, `link ${line.seq}`).toBe(previous);
  });
  return previous;
};

describe('the audit trail from the CLI (embedded store)', () => {
  let fx: ApiFixture;
  let store: Store;
  let ci: { id: string; key: string };
  let api: Client;
  const admin = (args: string[]) => flipbook([...args, ...fx.storeArgs]);
  const adminOk = async (args: string[]) => {
    const result = await admin(args);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };

  beforeAll(async () => {
    // Polling status is well past the default rate limit; one lane processes the uploads.
    fx = await startApi('embedded', ['--workers', '1', '--rate-limit', '0', '--no-client-info']);
    store = await openStoreOf(fx.storeArgs);
    ci = JSON.parse(
      await adminOk(['key', 'create', '--workspace', 'acme', '--name', 'ci-bot', '--json']),
    );
    api = client(fx.api, ci.key);
  });
  afterAll(async () => {
    await store?.close();
    await fx?.stop();
  });

  const trail = (flipbookId: string) => trailOf(api, flipbookId);
  const verify = async (...args: string[]) => {
    const result = await admin(['audit', 'verify', ...args]);
    return {
      ...result,
      report: result.stdout.trim().startsWith('{') ? JSON.parse(result.stdout) : null,
    };
  };
  const eventCount = async () =>
    Number((await store.pool.query('SELECT count(*) AS n FROM emt_messages')).rows[0].n);

  let book: { flipbookId: string; versionId: string };

  it('flipbook events shows who did what as the HTTP trail does; serve --no-client-info records no client IP or user agent', async () => {
    const uploadRequest = `upload-${Date.now()}`;
    const created = await uploadReport(fx.api, ci.key, uploadRequest, 'audit-test/1.0');
    expectJson(created, 201);
    book = { flipbookId: created.body.flipbook_id, versionId: created.body.version_id };
    // and one with no request id of its own: the answer's fresh one is its story's
    const made = await api.create(undefined, {});
    expectJson(made, 201);
    await waitDone(api, book.flipbookId, book.versionId);
    await waitDone(api, made.body.flipbook_id, made.body.version_id);
    const events = await trailActivated(api, book.flipbookId);
    expect(typesBesideProgress(events)).toEqual([
      'FlipbookCreated',
      'VersionUploaded',
      ...PROCESSING,
    ]);
    const byKey = (request: string | null) => ({
      actor: { type: 'api_key', id: ci.id, name: 'ci-bot' },
      request_id: request,
      client_ip: null,
      user_agent: null,
      correlation_id: request,
      causation_id: null,
    });
    expect(events[0].metadata).toEqual(byKey(uploadRequest));
    expect(events[1].metadata).toEqual(byKey(uploadRequest));
    const other = (await trail(made.body.flipbook_id)).slice(0, 2);
    expect(other.map((e) => e.type)).toEqual(['FlipbookCreated', 'VersionUploaded']);
    for (const event of other) {
      expect(event.metadata).toEqual(byKey(made.headers.get('x-request-id')));
    }
    const stored = await store.pool.query(
      'SELECT message_metadata AS m FROM emt_messages WHERE stream_id = ANY($1)',
      [[`flipbook-${book.flipbookId}`, `flipbook-${made.body.flipbook_id}`]],
    );
    for (const row of stored.rows) {
      expect(Object.keys(row.m)).not.toContain('client_ip');
      expect(Object.keys(row.m)).not.toContain('user_agent');
    }

    // The same, read by the admin CLI.
    const cli = JSON.parse(await adminOk(['events', book.flipbookId, '--json']));
    expect(cli.map((e: Json) => e.metadata)).toEqual(events.map((e) => e.metadata));
    expect(await adminOk(['events', book.flipbookId])).toContain(`api_key:${ci.id}`);
  });

  it('records admins: --as NAME, or the operating-system user', async () => {
    await adminOk(['workspace', 'create', 'globex', '--plan', 'team', '--as', 'auditor-bob']);
    const issued = JSON.parse(await adminOk(['key', 'create', '--workspace', 'globex', '--json']));
    await adminOk(['download', book.flipbookId, 'off', '--as', 'auditor-bob']);

    const log = jsonLines(await adminOk(['audit', 'log', '--workspace', 'globex', '--json']));
    expect(log.map((e) => [e.type, e.metadata.actor])).toEqual([
      ['WorkspaceCreated', { type: 'admin', id: 'auditor-bob' }],
      ['ApiKeyIssued', { type: 'admin', id: userInfo().username }],
    ]);
    expect(log[1].data.keyId).toBe(issued.id);
    for (const event of log) {
      expect(event.metadata).toMatchObject({ request_id: null, client_ip: null, user_agent: null });
    }
    // An admin's change to a flipbook shows in its HTTP trail too.
    const last = (await trail(book.flipbookId)).at(-1);
    expect(last.type).toBe('FlipbookDownloadChanged');
    expect(last.metadata.actor).toEqual({ type: 'admin', id: 'auditor-bob' });
  });

  it('show --at prints the flipbook as ?at= answers it', async () => {
    const made = await createFlipbook(api, { title: 'Catalogue' });
    await waitDone(api, made.flipbookId, made.versionId);
    const activated = await waitFor('version 1 active', async () =>
      (await trail(made.flipbookId)).find((e) => e.type === 'VersionActivated'),
    );
    // a moment with version 1 shown, version 2 not yet uploaded
    const between = new Date(Date.parse(activated.at) + 1).toISOString();
    const v2 = (await api.addVersion(made.flipbookId)).body.version_id as string;
    await waitDone(api, made.flipbookId, v2);
    const then = await api.get(`/flipbooks/${made.flipbookId}?at=${encodeURIComponent(between)}`);
    expectJson(then, 200);
    expect(then.body.versions.map((v: Json) => v.id)).toEqual([made.versionId]);

    const connection = ['--url', fx.daemon.url, '--api-key', ci.key];
    const shown = await flipbook([
      'show',
      made.flipbookId,
      '--at',
      between,
      '--json',
      ...connection,
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(then.body);
    const text = await flipbook(['show', made.flipbookId, '--at', between, ...connection]);
    expect(text.stdout).toContain(made.versionId);
    expect(text.stdout).not.toContain(v2);
    const refused = await flipbook(['show', made.flipbookId, '--at', 'soon', ...connection]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Invalid at/);
  });

  it('filters the workspace log by actor and time', async () => {
    const all = jsonLines(await adminOk(['audit', 'log', '--workspace', 'acme', '--json']));
    expect(all.length).toBeGreaterThan(15);
    // Log order, across the workspace's streams.
    expect(new Set(all.map((e) => e.stream)).size).toBeGreaterThanOrEqual(4);

    const mine = jsonLines(
      await adminOk(['audit', 'log', '--workspace', 'acme', '--actor', ci.id, '--json']),
    );
    expect(mine.length).toBeGreaterThan(4);
    expect(mine).toEqual(all.filter((e) => e.metadata.actor.id === ci.id));
    expect(mine.every((e) => e.metadata.actor.type === 'api_key')).toBe(true);

    const middle = all[Math.floor(all.length / 2)];
    const since = jsonLines(
      await adminOk(['audit', 'log', '--workspace', 'acme', '--since', middle.at, '--json']),
    );
    expect(since).toEqual(all.filter((e) => Date.parse(e.at) >= Date.parse(middle.at)));
    expect(since.length).toBeLessThan(all.length);
    const until = jsonLines(
      await adminOk(['audit', 'log', '--workspace', 'acme', '--until', middle.at, '--json']),
    );
    expect(until.length + since.length).toBe(
      all.length + all.filter((e) => e.at === middle.at).length,
    );
    // Other workspaces' events never show.
    expect(all.every((e) => e.data.workspaceId === fx.workspaceId)).toBe(true);

    const text = await adminOk(['audit', 'log', '--workspace', 'acme', '--actor', ci.id]);
    expect(text.trim().split('\n')).toHaveLength(mine.length);
    expect(text).toContain(`api_key:${ci.id}`);
    // Key hashes and file paths stay inside.
    const json = JSON.stringify(all);
    expect(json).toContain('ApiKeyIssued');
    expect(json).not.toMatch(/keyHash|key_hash/);
    expect(json).not.toContain('/tmp/flipbook-data-');
    expect(json).not.toContain('/blobs/');
    expect((await admin(['audit', 'log', '--workspace', 'acme', '--since', 'later'])).code).toBe(2);
    expect((await admin(['audit', 'log', '--workspace', 'nobody'])).code).toBe(1);
  });

  it('exports the log in chain order with hashes anyone can recompute (node:crypto, and the Python script of docs/audit.md)', async () => {
    const exported = await adminOk(['audit', 'export']);
    const lines = jsonLines<Exported>(exported);
    expect(lines).toHaveLength(await eventCount());
    const head = recomputeChain(lines);
    const checkpoint = JSON.parse(await adminOk(['audit', 'checkpoint']));
    expect(checkpoint).toMatchObject({ version: 1, seq: lines.length, hash: head });
    expect(Object.keys(lines[0] ?? {})).toEqual([
      'seq',
      'stream',
      'position',
      'id',
      'type',
      'data',
      'metadata',
      'recorded',
      'hash',
    ]);
    // The Python script relies on this: every number the log holds is an integer.
    const numbers: number[] = [];
    const walk = (value: unknown) => {
      if (typeof value === 'number') numbers.push(value);
      else if (value && typeof value === 'object') Object.values(value).forEach(walk);
    };
    for (const line of lines) walk([line.data, line.metadata]);
    expect(numbers.length).toBeGreaterThan(0);
    expect(numbers.every(Number.isSafeInteger)).toBe(true);

    // The script in docs/audit.md is scripts/verify-export.py, character for character.
    const doc = readFileSync(join(ROOT, 'docs/audit.md'), 'utf8');
    const script = readFileSync(join(ROOT, 'scripts/verify-export.py'), 'utf8');
    expect(doc).toContain(`\`\`\`python\n${script}\`\`\``);

    const python = (input: string, ...args: string[]) =>
      run('python3', [join(ROOT, 'scripts/verify-export.py'), ...args], input);
    const intact = await python(exported);
    expect(intact.stdout.trim(), intact.stderr).toBe(
      `intact: ${lines.length} events, head ${head}`,
    );
    expect(intact.code).toBe(0);
    const checkpointFile = join(await tempDataDir(), 'checkpoint.json');
    await writeFile(checkpointFile, JSON.stringify(checkpoint));
    expect((await python(exported, checkpointFile)).code).toBe(0);

    // Tampered exports: a changed title, two events swapped, the last event dropped.
    const edited = lines.map((line) =>
      line.type === 'FlipbookCreated' ? { ...line, data: { ...line.data, title: 'Forged' } } : line,
    );
    const firstEdited = edited.find((line) => line.type === 'FlipbookCreated');
    const changed = await python(edited.map((l) => JSON.stringify(l)).join('\n'));
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain(
      `TAMPERED: link ${firstEdited?.seq}: ${firstEdited?.stream} position ${firstEdited?.position}`,
    );
    const swapped = [...lines];
    [swapped[3], swapped[4]] = [swapped[4] as Exported, swapped[3] as Exported];
    expect((await python(swapped.map((l) => JSON.stringify(l)).join('\n'))).code).toBe(1);
    const dropped = lines
      .slice(0, -1)
      .map((l) => JSON.stringify(l))
      .join('\n');
    expect((await python(dropped)).code).toBe(0); // a shorter log is a consistent prefix...
    const short = await python(dropped, checkpointFile);
    expect(short.code).toBe(1); // ...which only the checkpoint catches
    expect(short.stdout).toContain('TAMPERED');
  });

  /**
   * Every read table's rows, for comparing before and after a replay. flipbook_counts' stamps
   * name the transaction that last changed the list, so a replay gives them new values on
   * purpose (nothing a daemon remembered from before it may pass for current): only they differ.
   */
  const stamps: Record<string, string[]> = { flipbook_counts: ['changed', 'touched'] };
  const snapshot = async () => {
    const tables: Record<string, string[]> = {};
    for (const table of readTables) {
      const without = (stamps[table.table] ?? []).map((c) => ` - '${c}'`).join('');
      const { rows } = await store.pool.query(
        `SELECT (to_jsonb(t)${without})::text AS row FROM ${table.table} t`,
      );
      tables[table.table] = rows.map((r) => r.row as string).sort();
    }
    return tables;
  };

  it('replay rebuilds the read tables exactly and leaves the chain intact', async () => {
    const events = await eventCount();
    const before = await snapshot();
    expect(before.pages?.length).toBeGreaterThan(0);
    const replayed = JSON.parse(await adminOk(['replay', '--json']));
    expect(replayed.events).toBe(events);
    expect(await snapshot()).toEqual(before);
    expect(await eventCount()).toBe(events);
    const verified = await verify('--json');
    expect(verified.code).toBe(0);
    expect(verified.report).toMatchObject({ intact: true, events });
  });

  it('verify: exit 0 on an intact log, 1 naming the first edited or reordered event', async () => {
    const intact = await verify();
    expect(intact.code, intact.stderr).toBe(0);
    expect(intact.stdout).toMatch(/^intact: \d+ events, head [0-9a-f]{64}\n$/);

    const stream = `flipbook-${book.flipbookId}`;
    const at = (position: number) =>
      store.pool.query(
        'SELECT message_type, message_data FROM emt_messages WHERE stream_id = $1 AND stream_position = $2',
        [stream, position],
      );
    const put = (position: number, type: string, data: unknown) =>
      store.pool.query(
        `UPDATE emt_messages SET message_type = $3, message_data = $4
         WHERE stream_id = $1 AND stream_position = $2`,
        [stream, position, type, JSON.stringify(data)],
      );
    const [first, second] = [(await at(1)).rows[0], (await at(2)).rows[0]];

    // An edited event: the title, in place.
    await put(1, first.message_type, { ...first.message_data, title: 'Nothing to see' });
    const edited = await verify();
    expect(edited.code).toBe(1);
    expect(edited.stdout).toMatch(
      new RegExp(`^TAMPERED: ${stream} position 1 \\(chain link \\d+\\)`),
    );
    const json = await verify('--json');
    expect(json.code).toBe(1);
    expect(json.report).toMatchObject({
      intact: false,
      first: { stream, id: book.flipbookId, position: 1 },
    });
    // Put back exactly as it was, the log verifies again: the hash is over the content only.
    await put(1, first.message_type, first.message_data);
    expect((await verify()).code).toBe(0);

    // Two events swapped (their types and data): caught at the first of them.
    await put(1, second.message_type, second.message_data);
    await put(2, first.message_type, first.message_data);
    const swapped = await verify('--json');
    expect(swapped.code).toBe(1);
    expect(swapped.report.first).toMatchObject({ stream, position: 1 });
    await put(1, first.message_type, first.message_data);
    await put(2, second.message_type, second.message_data);
    expect((await verify()).code).toBe(0);

    // Metadata is covered too: who did it cannot be rewritten.
    await store.pool.query(
      `UPDATE emt_messages SET message_metadata = jsonb_set(message_metadata, '{actor,id}', '"someone-else"')
       WHERE stream_id = $1 AND stream_position = 2`,
      [stream],
    );
    expect((await verify('--json')).report.first).toMatchObject({ stream, position: 2 });
    await store.pool.query(
      `UPDATE emt_messages SET message_metadata = jsonb_set(message_metadata, '{actor,id}', to_jsonb($2::text))
       WHERE stream_id = $1 AND stream_position = 2`,
      [stream, ci.id],
    );
    expect((await verify()).code).toBe(0);
  });

  it('verify holds beside a busy daemon and names rows of another kind; an edited global_position reorders nothing', async () => {
    // Appends committing while verify reads are not a broken chain: it reads one snapshot.
    const uploads = Promise.all(
      Array.from({ length: 8 }, (_, i) => createFlipbook(api, { title: `Busy ${i}` })),
    );
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await verify());
    const busy = await uploads;
    for (const run of runs) expect(run.code, run.stdout).toBe(0);
    // Their processing over too: the snapshots below compare the read tables at rest.
    for (const made of busy) await waitDone(api, made.flipbookId, made.versionId);

    const stream = `flipbook-${book.flipbookId}`;
    const last = Number(
      (
        await store.pool.query(
          'SELECT max(stream_position)::int AS n FROM emt_messages WHERE stream_id = $1',
          [stream],
        )
      ).rows[0].n,
    );
    // A row written around the service as something other than an event: Emmett's own reads
    // see it, so verify must too.
    await store.pool.query(
      `INSERT INTO emt_messages (stream_id, stream_position, partition, message_kind, message_data,
         message_metadata, message_schema_version, message_type, message_id, transaction_id)
       VALUES ($1, $2, 'emt:default', 'L', '{"allowed": true}', '{}', '1',
         'FlipbookDownloadChanged', gen_random_uuid()::text, pg_current_xact_id())`,
      [stream, last + 1],
    );
    const inserted = await verify('--json');
    expect(inserted.code).toBe(1);
    expect(inserted.report.first).toMatchObject({ stream, position: last + 1 });
    await store.pool.query(
      'DELETE FROM emt_messages WHERE stream_id = $1 AND stream_position = $2',
      [stream, last + 1],
    );
    // A chained event turned into another kind (commands and replay would skip it).
    await store.pool.query(
      `UPDATE emt_messages SET message_kind = 'C' WHERE stream_id = $1 AND stream_position = 1`,
      [stream],
    );
    const kind = await verify('--json');
    expect(kind.code).toBe(1);
    expect(kind.report.first).toMatchObject({ stream, position: 1 });
    await store.pool.query(
      `UPDATE emt_messages SET message_kind = 'E' WHERE stream_id = $1 AND stream_position = 1`,
      [stream],
    );
    expect((await verify()).code).toBe(0);

    // Swap the log positions of the stream's first and last events: not covered by the hash,
    // and, since replay follows the chain, changing nothing it builds.
    const before = await snapshot();
    const swap = (a: number, b: number) =>
      store.pool.query(
        `UPDATE emt_messages m SET global_position = o.global_position
         FROM emt_messages o
         WHERE m.stream_id = $1 AND o.stream_id = $1
           AND ((m.stream_position = $2 AND o.stream_position = $3)
             OR (m.stream_position = $3 AND o.stream_position = $2))`,
        [stream, a, b],
      );
    await swap(1, last);
    await adminOk(['replay']);
    expect(await snapshot()).toEqual(before);
    await swap(1, last);
    expect((await verify()).code).toBe(0);
  }, 120_000);

  // Last: it deletes a stream for good.
  it('verify --checkpoint catches a deleted stream, even re-chained by someone holding the database', async () => {
    const victim = await createFlipbook(api, { title: 'To be erased' });
    await waitDone(api, victim.flipbookId, victim.versionId);
    const checkpoint = await adminOk(['audit', 'checkpoint']);
    const file = join(await tempDataDir(), 'checkpoint.json');
    await writeFile(file, checkpoint);
    // Events after the checkpoint are fine: it covers what came before. (Processing is over
    // before the tampering starts: nothing appends while the chain is rebuilt below.)
    const later = await createFlipbook(api, { title: 'Later' });
    await waitDone(api, later.flipbookId, later.versionId);
    const holds = await verify('--checkpoint', file);
    expect(holds.code, holds.stdout).toBe(0);
    expect(holds.stdout).toContain('the checkpoint holds');

    const stream = `flipbook-${victim.flipbookId}`;
    await store.pool.query('DELETE FROM emt_messages WHERE stream_id = $1', [stream]);
    await store.pool.query('DELETE FROM emt_streams WHERE stream_id = $1', [stream]);
    // Rows gone, links left: verify alone names the first deleted event.
    const gone = await verify('--json');
    expect(gone.code).toBe(1);
    expect(gone.report.first).toMatchObject({
      stream,
      position: 1,
      problem: 'the event was deleted',
    });

    // Someone with the database rebuilds the whole chain without the stream: it verifies...
    const client = await store.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM audit_chain');
      await client.query('DELETE FROM audit_head');
      await chainExisting(client);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect((await verify()).code).toBe(0);
    // ...but not against the checkpoint kept outside.
    const caught = await verify('--checkpoint', file, '--json');
    expect(caught.code).toBe(1);
    expect(caught.report.intact).toBe(false);
    const text = await verify('--checkpoint', file);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^TAMPERED: .*checkpoint/);

    // A checkpoint that is not one is a usage error.
    await writeFile(file, '{"seq": 1}');
    expect((await verify('--checkpoint', file)).code).toBe(2);
  });
});
