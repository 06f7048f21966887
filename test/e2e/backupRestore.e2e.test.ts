// The restore drill of docs/deploy.md ("Backups"), carried out: a deployment on PostgreSQL and a
// bucket publishes a book; its database is dumped with pg_dump and its bucket copied with
// `flipbook blobs copy`; then a new database restored with pg_restore and a new bucket copied
// back carry a daemon that serves the same book, byte for byte, with the audit chain intact.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, createFlipbook, expectJson } from '../support/apiHelpers.ts';
import { type Daemon, flipbook, startDaemon } from '../support/cli.ts';
import { freshDatabase, tempDataDir } from '../support/databases.ts';
import { freshBucket } from '../support/s3Server.ts';
import { waitFor } from '../support/waitFor.ts';

const run = promisify(execFile);

describe('backup and restore: pg_dump + the bucket, restored into a new database and bucket', () => {
  let fx: ApiFixture;
  let restored: Daemon | null = null;

  beforeAll(async () => {
    fx = await startApi('postgres', ['--workers', '1', '--rate-limit', '0']);
    expect(fx.blobKind).toBe('s3');
  });
  afterAll(async () => {
    await restored?.stop();
    await fx?.stop();
  });

  it('serves the same book from the restored database and bucket, and the audit chain verifies', async () => {
    const api = client(fx.api, fx.key);
    const { flipbookId, versionId } = await createFlipbook(api, { title: 'Backed up' });
    await waitFor('the version to be processed', async () => {
      const reply = await api.status(flipbookId, versionId);
      return reply.body.status === 'done' ? true : undefined;
    });
    const before = (await api.flipbook(flipbookId)).body;
    const originalBefore = await fetch(`${fx.daemon.url}/files/originals/${versionId}`);
    const pageBefore = await fetch(before.pages[0].img_mid);
    expect(pageBefore.status).toBe(200);
    const digest = async (reply: Response) =>
      createHash('sha256')
        .update(new Uint8Array(await reply.arrayBuffer()))
        .digest('hex');
    const pageDigest = await digest(pageBefore);
    const databaseUrl = fx.storeArgs[1] as string;
    const endpoint = fx.blobArgs[fx.blobArgs.indexOf('--s3-endpoint') + 1] as string;

    // Backup, as docs/deploy.md says: the database first, then the bucket.
    const dump = join(await tempDataDir(), 'flipbook.dump');
    await run('pg_dump', ['--format=custom', `--file=${dump}`, databaseUrl]);
    const backup = await freshBucket(endpoint);
    const copied = await flipbook([
      'blobs',
      'copy',
      ...fx.blobArgs,
      '--to',
      `s3://${backup.bucket}/nightly`,
      '--json',
    ]);
    expect(copied.code, copied.stderr).toBe(0);
    const report = JSON.parse(copied.stdout);
    // the original, three images and a text per page, the document's structure
    expect(report.copied).toBeGreaterThanOrEqual(1 + before.pages.length * 4 + 1);
    expect(report.failed).toBe(0);

    // The disaster: the old deployment is gone.
    await fx.daemon.stop();

    // Restore into a new database and a new bucket.
    const newDatabase = await freshDatabase();
    await run('pg_restore', ['--no-owner', `--dbname=${newDatabase}`, dump]);
    const target = await freshBucket(endpoint);
    const back = await flipbook([
      'blobs',
      'copy',
      '--blob-url',
      `s3://${backup.bucket}/nightly`,
      '--s3-endpoint',
      endpoint,
      '--s3-path-style',
      '--to',
      `s3://${target.bucket}`,
      '--json',
    ]);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout).copied).toBe(report.copied);

    restored = await startDaemon([
      '--database-url',
      newDatabase,
      ...target.args,
      '--workers',
      '0',
      '--rate-limit',
      '0',
    ]);
    const again = client(`${restored.url}/api/v1`, fx.key);
    const after = await again.flipbook(flipbookId);
    expectJson(after, 200);
    expect(after.body.title).toBe('Backed up');
    expect(after.body.versions).toEqual(
      before.versions.map((v: Record<string, unknown>) => ({ ...v })),
    );
    expect(after.body.pages).toHaveLength(before.pages.length);
    const pageAfter = await fetch(after.body.pages[0].img_mid);
    expect(pageAfter.status).toBe(200);
    expect(await digest(pageAfter)).toBe(pageDigest);
    const originalAfter = await fetch(`${restored.url}/files/originals/${versionId}`);
    expect(originalAfter.status).toBe(originalBefore.status);

    const verify = await flipbook(['audit', 'verify', '--database-url', newDatabase]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 240_000);
});
