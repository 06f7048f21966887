// What a killed or crashed daemon leaves behind, cleaned by the next start: an upload's temp file
// (kill -9 mid-upload), the embedded PostgreSQL it started, stored originals no version uses and
// page folders of versions that are gone; while everything still in use stays.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thisOwner } from '../../src/blobs/listing.ts';
import type { SweepReport } from '../../src/blobs/sweep.ts';
import { isAlive } from '../../src/isAlive.ts';
import { startApi } from '../support/apiFixture.ts';
import {
  client,
  corpus,
  createFlipbook,
  expectJson,
  multipartEnvelope,
  SMALL_PDF,
  sleep,
} from '../support/apiHelpers.ts';
import { type Daemon, flipbook, NODE, startDaemon } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import { waitFor } from '../support/waitFor.ts';

const HOUR = 60 * 60 * 1000;
const MB = 1024 * 1024;

/** The report the daemon logged when its start-up sweep finished. */
const sweepReport = (daemon: Daemon) =>
  waitFor('the blob sweep to finish', () => {
    for (const line of daemon.logs().split('\n')) {
      if (!line.includes('blob sweep')) continue;
      const entry = JSON.parse(line) as SweepReport & { msg: string };
      if (entry.msg.startsWith('blob sweep: removed')) return entry;
    }
    return undefined;
  });

/** The embedded server's postmaster pid, or null when no server runs on the cluster. */
const postmasterPid = (dataDir: string) => {
  const file = join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(file)) return null;
  return Number(readFileSync(file, 'utf8').split('\n')[0]);
};

const exited = (daemon: Daemon) =>
  new Promise<void>((resolve) => {
    if (daemon.process.exitCode !== null || daemon.process.signalCode !== null) resolve();
    else daemon.process.once('exit', () => resolve());
  });

/** A pid that certainly belonged to a process which has ended. */
const deadPid = async () => {
  const child = spawn(NODE, ['-e', '0']);
  await new Promise((r) => child.once('exit', r));
  return child.pid as number;
};

const setAge = (path: string, ageMs: number, now = Date.now()) =>
  utimes(path, new Date(now - ageMs), new Date(now - ageMs));

describe('leftovers of a killed daemon', () => {
  it('kill -9 mid-upload: the next daemon removes the temp file, and stops the PostgreSQL it adopted when it exits', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await tempDataDir();
    const args = ['--data-dir', dataDir, '--workers', '0', '--rate-limit', '0'];
    const tmp = join(dataDir, 'blobs', 'tmp');
    const first = await startDaemon(args);
    expect(
      (await flipbook(['workspace', 'create', 'acme', '--plan', 'team', '--data-dir', dataDir]))
        .code,
    ).toBe(0);
    const issued = await flipbook([
      'key',
      'create',
      '--workspace',
      'acme',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout).key as string;
    const server = postmasterPid(dataDir);
    expect(server).not.toBeNull();

    // An upload that keeps coming, a chunk at a time, until its daemon is killed.
    const envelope = multipartEnvelope({ title: 'never finished' }, 'big.pdf');
    const chunk = new Uint8Array(256 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(envelope.head),
      pull: async (controller) => {
        await sleep(10); // pace the body so the kill lands mid-upload
        controller.enqueue(sent === 0 ? new TextEncoder().encode('%PDF-1.4\n') : chunk);
        sent++;
      },
    });
    const upload = fetch(`${first.url}/api/v1/flipbooks`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { authorization: `Bearer ${key}`, 'content-type': envelope.contentType },
    } as RequestInit).catch((error: Error) => error);

    const sizeOfPart = async () => {
      const names = (await readdir(tmp)).filter((n) => n.endsWith('.part'));
      if (names.length !== 1) return undefined;
      const info = await stat(join(tmp, names[0] as string)).catch(() => null);
      return info ? { path: join(tmp, names[0] as string), size: info.size } : undefined;
    };
    const part = await waitFor('the upload temp file', sizeOfPart);
    expect(part.path).toMatch(
      new RegExp(`/${thisOwner().host}\\.${first.process.pid}\\.[0-9a-f-]{36}\\.part$`),
    );
    await waitFor('the temp file to grow past 1 MB', async () => {
      const now = await sizeOfPart();
      return now && now.size > part.size && now.size > MB ? now : undefined;
    });
    first.process.kill('SIGKILL');
    await exited(first);
    expect(await upload).toBeInstanceOf(Error); // the connection died with the daemon

    // What the killed daemon left: its temp file and its server (which its watchdog stops only
    // after 10 s with nobody connected: the next daemon comes sooner and adopts it).
    expect(existsSync(part.path)).toBe(true);
    expect(isAlive(server as number)).toBe(true);

    const second = await startDaemon(args);
    const report = await sweepReport(second);
    expect(existsSync(part.path)).toBe(false);
    expect(report.temporaries.count).toBe(1);
    expect(report.temporaries.bytes).toBeGreaterThan(MB);
    // It serves, on the server the killed daemon started.
    expect(postmasterPid(dataDir)).toBe(server);
    expectJson(await client(`${second.url}/api/v1`, key).list(), 200);
    // An admin command coming and going leaves the adopted server to the daemon that adopted it.
    expect((await flipbook(['workspace', 'list', '--data-dir', dataDir])).code).toBe(0);
    expect(postmasterPid(dataDir)).toBe(server);
    expectJson(await client(`${second.url}/api/v1`, key).list(), 200);

    expect(await second.stop()).toBe(0);
    await waitFor('the PostgreSQL server to stop', () =>
      postmasterPid(dataDir) === null && !isAlive(server as number) ? true : undefined,
    );
  });
});

describe('leftovers in the blob directory', () => {
  it('the next start removes unused old originals, page folders of gone versions and dead temp files; keeps what is in use', {
    timeout: 120_000,
  }, async () => {
    const fx = await startApi('embedded', ['--rate-limit', '0']);
    const dataDir = fx.storeArgs[1] as string;
    const blobs = join(dataDir, 'blobs');
    await sweepReport(fx.daemon); // its own start-up sweep is over before we plant anything
    const c = client(fx.api, fx.key);

    // In use: a live version, its original (old: age alone never condemns it) and its pages.
    const { flipbookId, versionId } = await createFlipbook(c);
    const sha = createHash('sha256').update(corpus(SMALL_PDF)).digest('hex');
    const usedOriginal = join(blobs, 'originals', sha.slice(0, 2), `${sha}.pdf`);
    expect(existsSync(usedOriginal)).toBe(true);
    await setAge(usedOriginal, 3 * HOUR);
    const livePages = join(blobs, 'pages', versionId, '1');
    await mkdir(livePages, { recursive: true });
    await writeFile(join(livePages, 'max.jpg'), 'jpeg');

    // A deleted version whose folder survived (a crash between the event and the removal).
    const deleted = (await c.addVersion(flipbookId)).body.version_id as string;
    expectJson(await c.remove(flipbookId, deleted), 200);
    const deletedPages = join(blobs, 'pages', deleted, '1');
    await mkdir(deletedPages, { recursive: true });
    await writeFile(join(deletedPages, 'max.jpg'), 'x'.repeat(1000));
    // A folder of a version that never existed.
    const strayPages = join(blobs, 'pages', randomUUID());
    await mkdir(strayPages, { recursive: true });
    await writeFile(join(strayPages, 'text.txt'), 'y'.repeat(500));

    // Originals no version uses: one old enough to go, one young enough to be an upload in flight.
    const planted = async (ageMs: number, bytes: number) => {
      const digest = createHash('sha256').update(randomUUID()).digest('hex');
      const path = join(blobs, 'originals', digest.slice(0, 2), `${digest}.pdf`);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, 'z'.repeat(bytes));
      await setAge(path, ageMs);
      return path;
    };
    const oldOrphan = await planted(2 * HOUR, 3000);
    const youngOrphan = await planted(10 * 60 * 1000, 3000);

    // Temporaries: a dead process's on this host; another host's, fresh and a day old; a live
    // process's (this test's) on this host.
    const me = thisOwner();
    const temporary = async (owner: string, ageMs: number, bytes: number) => {
      const path = join(blobs, 'tmp', `${owner}.${randomUUID()}.part`);
      await writeFile(path, 'p'.repeat(bytes));
      await setAge(path, ageMs);
      return path;
    };
    const deadOne = await temporary(`${me.host}.${await deadPid()}`, 0, 700);
    const liveOne = await temporary(`${me.host}.${process.pid}`, 0, 100);
    const otherHostFresh = await temporary('elsewhere.example.org.4242', 2 * HOUR, 100);
    const otherHostStale = await temporary('elsewhere.example.org.4242', 25 * HOUR, 300);

    expect(await fx.daemon.stop()).toBe(0);
    const next = await startDaemon([...fx.storeArgs, '--workers', '0', '--rate-limit', '0']);
    try {
      const report = await sweepReport(next);
      expect(report.originals).toEqual({ count: 1, bytes: 3000 });
      expect(report.pageFolders).toEqual({ count: 2, bytes: 1500 });
      expect(report.temporaries).toEqual({ count: 2, bytes: 1000 });

      for (const gone of [oldOrphan, deletedPages, strayPages, deadOne, otherHostStale]) {
        expect(existsSync(gone), gone).toBe(false);
      }
      expect(existsSync(join(blobs, 'pages', deleted))).toBe(false);
      for (const kept of [
        usedOriginal,
        youngOrphan,
        join(livePages, 'max.jpg'),
        liveOne,
        otherHostFresh,
      ]) {
        expect(existsSync(kept), kept).toBe(true);
      }
      // The live version still serves its original.
      const download = await client(`${next.url}/api/v1`, fx.key).flipbook(flipbookId);
      expectJson(download, 200);
    } finally {
      expect(await next.stop()).toBe(0);
    }
  });
});
