// A throwaway real PostgreSQL server for the test run: initdb into a temp dir, pg_ctl start on a
// free 127.0.0.1 port, pg_ctl stop + rm at the end. Uses Debian's server binaries under
// /usr/lib/postgresql/<highest version>/bin (they are not on PATH). PostgreSQL refuses to run as
// root, so when we are root the binaries run as the `postgres` system user.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export type PostgresServer = {
  url: string;
  /** stops every process of the server (SIGSTOP): a paused VM, a stalled disk, a partition */
  freeze(): void;
  /** lets them run again (SIGCONT) */
  thaw(): void;
  stop(): Promise<void>;
};

const PG_ROOT = '/usr/lib/postgresql';
const USER = 'flipbook';
const NO_SYNC = '--no-sync'; // a test cluster need not survive a crash

type RunAs = { uid: number; gid: number };

/** bin dir of the highest installed PostgreSQL major version that has initdb and pg_ctl. */
export const findPostgresBin = (): string => {
  const versions = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT)
        .filter((name) => /^\d+(\.\d+)?$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const bin = join(PG_ROOT, version, 'bin');
    if (['initdb', 'pg_ctl', 'postgres'].every((tool) => existsSync(join(bin, tool)))) return bin;
  }
  throw new Error(
    `No PostgreSQL server binaries found under ${PG_ROOT}/<version>/bin; ` +
      "install Debian's postgresql package (apt-get install -y postgresql).",
  );
};

const run = (file: string, args: string[], cwd: string, runAs: RunAs | undefined) =>
  new Promise<string>((done, fail) => {
    execFile(
      file,
      args,
      { cwd, env: { ...process.env, LC_ALL: 'C.UTF-8' }, timeout: 60_000, ...runAs },
      (error, stdout, stderr) => {
        if (!error) return done(stdout);
        const command = `${file} ${args.join(' ')}`;
        fail(new Error(`${command} failed: ${error.message}\n${stdout}${stderr}`));
      },
    );
  });

const idOf = async (flag: '-u' | '-g'): Promise<number> => {
  const out = await run('id', [flag, 'postgres'], tmpdir(), undefined).catch(() => {
    throw new Error('Running as root, but there is no `postgres` system user to run PostgreSQL as');
  });
  return Number(out.trim());
};

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? done(address.port) : fail(new Error('no port')),
      );
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const waitForSelect1 = async (url: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    } finally {
      await client.end().catch(() => {});
    }
    await sleep(100);
  }
};

/** The postmaster and every process it started (backends, background workers). */
const serverProcesses = (dataDir: string): number[] => {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // the parent pid is the 2nd field after the command's closing parenthesis
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
};

export const startPostgresServer = async (
  options: { settings?: Record<string, string> } = {},
): Promise<PostgresServer> => {
  const bin = findPostgresBin();
  const runAs: RunAs | undefined =
    process.getuid?.() === 0 ? { uid: await idOf('-u'), gid: await idOf('-g') } : undefined;

  const dir = await mkdtemp(join(tmpdir(), 'flipbook-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  // mkdtemp gives 0700 owned by us; hand the dir to the postgres user (it also holds the socket).
  if (runAs) await chown(dir, runAs.uid, runAs.gid);

  const pgCtl = (args: string[]) => run(join(bin, 'pg_ctl'), ['-D', dataDir, ...args], dir, runAs);
  let running = false;
  let frozen: number[] = [];
  const stopSync = () => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone
      }
    }
    // Last resort if the run dies without calling stop(): never leave a postmaster behind.
    if (running) {
      spawnSync(join(bin, 'pg_ctl'), ['-D', dataDir, 'stop', '-m', 'immediate', '-w'], {
        cwd: dir,
        stdio: 'ignore',
        ...runAs,
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopSync);

  try {
    await run(
      join(bin, 'initdb'),
      ['-D', dataDir, '-A', 'trust', '-U', USER, '--encoding=UTF8', '--locale=C.UTF-8', NO_SYNC],
      dir,
      runAs,
    );
    // Settings go in the config file: `pg_ctl -o` passes through a shell, so only the port goes there.
    const settings = {
      listen_addresses: "'127.0.0.1'",
      unix_socket_directories: `'${dir.replaceAll("'", "''")}'`,
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      max_connections: '200',
      ...options.settings,
    };
    await appendFile(
      join(dataDir, 'postgresql.conf'),
      `\n${Object.entries(settings)
        .map(([key, value]) => `${key} = ${value}`)
        .join('\n')}\n`,
    );

    // The free port can be taken between probing and binding; retry with another one.
    let url = '';
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      try {
        running = true;
        await pgCtl(['-l', logFile, '-o', `-p ${port}`, '-w', '-t', '60', 'start']);
        url = `postgres://${USER}@127.0.0.1:${port}/postgres`;
        break;
      } catch (error) {
        // `running` stays true: after a timeout the postmaster may still be up, and stopSync()
        // on a stopped cluster is harmless.
        const log = await readFile(logFile, 'utf8').catch(() => '');
        if (attempt >= 3 || !/could not bind|address already in use/i.test(log)) {
          throw new Error(`${(error as Error).message}\n--- postgres.log ---\n${log}`);
        }
      }
    }
    await waitForSelect1(url);

    let stopped: Promise<void> | undefined;
    return {
      url,
      freeze: () => {
        frozen = serverProcesses(dataDir);
        for (const pid of frozen) process.kill(pid, 'SIGSTOP');
      },
      thaw: () => {
        for (const pid of frozen) {
          try {
            process.kill(pid, 'SIGCONT');
          } catch {
            // gone
          }
        }
        frozen = [];
      },
      stop: () => {
        stopped ??= (async () => {
          for (const pid of frozen) process.kill(pid, 'SIGCONT');
          try {
            await pgCtl(['stop', '-m', 'fast', '-w']);
            running = false;
          } finally {
            process.removeListener('exit', stopSync);
            if (running) stopSync();
            else await rm(dir, { recursive: true, force: true });
          }
        })();
        return stopped;
      },
    };
  } catch (error) {
    process.removeListener('exit', stopSync);
    stopSync();
    throw error;
  }
};
