// Every way a daemon on the embedded store ends, and the PostgreSQL server it started: SIGHUP
// (a closed terminal) is logged and the daemon keeps serving; SIGQUIT stops it at once and
// cleanly; after kill -9 the server's watchdog stops the orphaned server once nobody is connected
// (a new daemon then starts and serves the data), and leaves it running while another process
// still uses it. Found by the probe of issue 40: SIGHUP ended the daemon at once, and its
// server ran on with nobody to stop it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { client, expectJson } from '../support/apiHelpers.ts';
import { type Daemon, FLIPBOOK, flipbook, NODE, startDaemon } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import { postmasterPid, running } from '../support/processTree.ts';
import { S3_ENV } from '../support/s3Env.ts';
import { waitFor } from '../support/waitFor.ts';
import { startWorker, stopWorkers } from '../support/workers.ts';

/** How long the watchdog leaves an orphaned server with nobody connected (serverWatchdog.ts). */
const GRACE_MS = 10_000;

const serverLog = (dataDir: string) => {
  try {
    return readFileSync(join(dataDir, 'pg', 'server.log'), 'utf8');
  } catch {
    return '';
  }
};

/** The watchdog processes watching this data directory's server. */
const watchdogs = (dataDir: string) =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return args.includes('flipbook-pg-watchdog') && args.includes(join(dataDir, 'pg'));
      } catch {
        return false; // ended while we looked
      }
    });

/**
 * Whether the process runs: alive and not a zombie (the postmaster's parent is whatever adopted
 * it when pg_ctl left, and that may be slow to collect it, or never do).
 */
const serverGone = (dataDir: string, pid: number) =>
  waitFor(
    `the embedded PostgreSQL (pid ${pid}) to stop`,
    () => (postmasterPid(dataDir) === null && !running(pid) ? true : undefined),
    GRACE_MS + 20_000,
  );

const exit = (daemon: Daemon) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    const { exitCode, signalCode } = daemon.process;
    if (exitCode !== null || signalCode !== null) resolve({ code: exitCode, signal: signalCode });
    else daemon.process.once('exit', (code, signal) => resolve({ code, signal }));
  });

const daemons: Daemon[] = [];
const daemon = async (dataDir: string) => {
  const started = await startDaemon(['--data-dir', dataDir, '--workers', '0', '--rate-limit', '0']);
  daemons.push(started);
  return started;
};

/** daemons not our children (started on a terminal), killed after the test should it fail */
const strays: number[] = [];

afterEach(async () => {
  for (const d of daemons.splice(0)) {
    if (d.process.exitCode === null && d.process.signalCode === null) d.process.kill('SIGKILL');
  }
  for (const pid of strays.splice(0)) if (running(pid)) process.kill(pid, 'SIGKILL');
  await stopWorkers();
  // Servers still running are stopped by the run's teardown (strayServers.ts), and said.
});

describe('signals to a daemon on the embedded store', () => {
  it('SIGHUP is logged and the daemon keeps serving; SIGQUIT stops it at once, and its PostgreSQL', async () => {
    const dataDir = await tempDataDir();
    const first = await daemon(dataDir);
    const server = postmasterPid(dataDir) as number;
    expect(running(server)).toBe(true);

    first.process.kill('SIGHUP');
    await waitFor('the daemon to log SIGHUP', () =>
      first.logs().includes('"signal":"SIGHUP"') ? true : undefined,
    );
    const ready = await fetch(`${first.url}/readyz`); // it answers, and its database too
    expect(ready.status).toBe(200);
    expect(first.process.exitCode).toBeNull();

    first.process.kill('SIGQUIT');
    expect(await exit(first)).toEqual({ code: 0, signal: null });
    expect(first.logs()).toContain('"signal":"SIGQUIT"');
    // It stopped its server itself, on the way out: nothing is left running at once.
    expect(postmasterPid(dataDir)).toBeNull();
    await waitFor('the postmaster to exit', () => (running(server) ? undefined : true), 5000);
  });
});

/** CPU seconds the process has used (user and system), from /proc. */
const cpuSeconds = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100/s)
};

describe('a daemon whose terminal closes', () => {
  it('serves on, idle, with nowhere to log, and stops when told (its PostgreSQL too)', async () => {
    const dataDir = await tempDataDir();
    // A real terminal: `script` runs the daemon on a pseudo-terminal and is its other end.
    const command = [NODE, FLIPBOOK, 'serve', '--port', '0', '--data-dir', dataDir]
      .concat(['--workers', '0', '--rate-limit', '0'])
      .join(' ');
    const terminal = spawn('script', ['-qfec', `exec ${command}`, '/dev/null'], {
      env: { ...process.env, DATABASE_URL: '', ...S3_ENV },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    terminal.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const ready = await waitFor(
      'the daemon to be ready',
      () => {
        const line = output.split(/\r?\n/).find((l) => l.includes('"flipbook ready on'));
        return line ? (JSON.parse(line) as { pid: number; publicUrl: string }) : undefined;
      },
      30_000,
    );
    strays.push(ready.pid);
    const server = postmasterPid(dataDir) as number;
    // The terminal goes: the kernel hangs up its other side (SIGHUP to the daemon), and every
    // write to it fails from then on.
    terminal.kill('SIGKILL');
    await new Promise((resolve) => terminal.once('exit', resolve));
    expect((await fetch(`${ready.publicUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${ready.publicUrl}/api/v1/flipbooks`)).status).toBe(401); // logged
    const before = cpuSeconds(ready.pid);
    await new Promise((resolve) => setTimeout(resolve, 2000)); // a measurement's window
    expect(cpuSeconds(ready.pid) - before, 'CPU seconds in 2 s, idle').toBeLessThan(0.5);

    process.kill(ready.pid, 'SIGTERM');
    await waitFor('the daemon to exit', () => (running(ready.pid) ? undefined : true), 15_000);
    expect(postmasterPid(dataDir)).toBeNull();
    await waitFor('the postmaster to exit', () => (running(server) ? undefined : true), 5000);
  });
});

describe('a daemon killed with kill -9 on the embedded store', () => {
  it('its PostgreSQL is stopped by the watchdog, and a new daemon serves the data', {
    timeout: 90_000,
  }, async () => {
    const dataDir = await tempDataDir();
    const first = await daemon(dataDir);
    const store = ['--data-dir', dataDir];
    expect((await flipbook(['workspace', 'create', 'acme', ...store])).code).toBe(0);
    const issued = await flipbook(['key', 'create', '--workspace', 'acme', '--json', ...store]);
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout).key as string;
    const server = postmasterPid(dataDir) as number;
    expect(running(server)).toBe(true);
    // One watchdog for the server, whoever opened the store (the daemon, two admin commands).
    expect(watchdogs(dataDir)).toHaveLength(1);

    first.process.kill('SIGKILL');
    await exit(first);
    const killedAt = Date.now();
    await serverGone(dataDir, server);
    // Not before the grace (a supervisor restarting the daemon at once finds it running).
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(GRACE_MS - 1000);
    expect(serverLog(dataDir)).toMatch(/flipbook-pg-watchdog.*stopping the server/);
    await waitFor('the watchdog to leave', () =>
      watchdogs(dataDir).length === 0 ? true : undefined,
    );

    const second = await daemon(dataDir);
    expectJson(await client(`${second.url}/api/v1`, key).list(), 200);
    expect(await second.stop()).toBe(0);
    await serverGone(dataDir, postmasterPid(dataDir) ?? 0);
  });

  it('its PostgreSQL stays up for a worker still connected (SIGHUP leaves the worker working), and stops when the worker leaves', {
    timeout: 90_000,
  }, async () => {
    const dataDir = await tempDataDir();
    const first = await daemon(dataDir);
    const server = postmasterPid(dataDir) as number;
    const worker = await startWorker(['--data-dir', dataDir, '--workers', '1']);
    // One watchdog (a second started in a race waits for the lock a moment, then leaves: seen
    // once on a loaded machine).
    await expect.poll(() => watchdogs(dataDir).length, { timeout: 10_000 }).toBe(1);

    worker.child.kill('SIGHUP');
    await waitFor('the worker to log SIGHUP', () =>
      worker.logs().includes('"signal":"SIGHUP"') ? true : undefined,
    );

    first.process.kill('SIGKILL');
    await exit(first);
    const killedAt = Date.now();
    // The watchdog saw its owner gone and the worker connected...
    await waitFor('the watchdog to see the worker', () =>
      /flipbook-pg-watchdog.*stays up/.test(serverLog(dataDir)) ? true : undefined,
    );
    // ...and the server runs past the grace an orphan with nobody connected gets.
    await waitFor(
      'the grace to pass with the server up',
      () => {
        expect(running(server), 'the server is still running').toBe(true);
        return Date.now() - killedAt > GRACE_MS + 3000 ? true : undefined;
      },
      GRACE_MS + 10_000,
      200,
    );
    expect(postmasterPid(dataDir)).toBe(server);
    expect(worker.child.exitCode).toBeNull();

    // The worker, the last one out, stops the server as it leaves.
    worker.child.kill('SIGTERM');
    await new Promise((resolve) => worker.child.once('exit', resolve));
    expect(worker.child.exitCode).toBe(0);
    await serverGone(dataDir, server);
  });
});
