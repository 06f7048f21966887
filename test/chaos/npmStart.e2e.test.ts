// `npm start` as the README runs it, stopped the ways a supervisor and a terminal stop it (issue
// 41, item 8). npm runs a script as `sh -c SCRIPT` and forwards SIGTERM and SIGINT to that sh,
// which died of it and left the daemon and its embedded PostgreSQL running, port open (measured:
// still answering 8 s after `kill -TERM <npm's pid>`). The script now execs the daemon, so npm's
// child is the daemon itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';
import { tempDataDir } from '../support/databases.ts';
import { postmasterPid, running } from '../support/processTree.ts';
import { waitFor } from '../support/waitFor.ts';

/** The promise: a stopped `npm start` has let go of its port and its PostgreSQL within 10 s. */
const STOP_MS = 10_000;

/** The processes whose parent is `pid`, with their command lines. */
const childrenOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

type Started = { npm: ChildProcess; port: number; dataDir: string; logs: () => string };

const started: Started[] = [];
afterEach(() => {
  for (const { npm } of started.splice(0)) {
    if (npm.exitCode === null && npm.signalCode === null) {
      try {
        process.kill(-(npm.pid as number), 'SIGKILL');
      } catch {}
    }
  }
});

/** `npm start` in a group of its own (as a shell's job), on a free port and a fresh data dir. */
const npmStart = async (): Promise<Started> => {
  const dataDir = await tempDataDir();
  const npm = spawn(
    'npm',
    ['start', '--', '--data-dir', dataDir, '--port', '0', '--workers', '0'],
    {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, DATABASE_URL: '', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  npm.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  npm.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const self: Started = { npm, port: 0, dataDir, logs: () => output };
  started.push(self);
  const ready = await waitFor(
    'npm start to be ready',
    () => {
      const line = output.split('\n').find((l) => l.includes('"flipbook ready on'));
      if (line) return new URL((JSON.parse(line) as { publicUrl: string }).publicUrl);
      if (npm.exitCode !== null) throw new Error(`npm start ended:\n${output}`);
      return undefined;
    },
    120_000,
  );
  self.port = Number(ready.port);
  return self;
};

/** Waits until the port is closed, the PostgreSQL gone and npm exited; how long it took. */
const stopped = async ({ npm, port, dataDir, logs }: Started, postgres: number, since: number) => {
  await waitFor(
    `the port, the embedded PostgreSQL (${postgres}) and npm to be gone:\n${logs()}`,
    async () =>
      !(await portAnswers(port)) &&
      !running(postgres) &&
      postmasterPid(dataDir) === null &&
      npm.exitCode !== null
        ? true
        : undefined,
    STOP_MS + 20_000,
    100,
  );
  return performance.now() - since;
};

describe('npm start', () => {
  it('runs the daemon as npm’s own child: SIGTERM to npm’s pid stops it and its PostgreSQL', async () => {
    const run = await npmStart();
    const postgres = postmasterPid(run.dataDir) as number;
    expect(running(postgres)).toBe(true);
    // no shell in between: what npm forwards reaches the daemon
    const [child] = childrenOf(run.npm.pid as number);
    expect(readFileSync(`/proc/${child}/comm`, 'utf8').trim()).toBe('flipbook');
    const since = performance.now();
    process.kill(run.npm.pid as number, 'SIGTERM');
    const ms = await stopped(run, postgres, since);
    expect(ms).toBeLessThan(STOP_MS);
    expect(run.logs()).toContain('"msg":"stopped"');
  }, 180_000);

  it('Ctrl-C (SIGINT to the whole group) stops it once, with its grace, not cut as by a second Ctrl-C', async () => {
    const run = await npmStart();
    const postgres = postmasterPid(run.dataDir) as number;
    const since = performance.now();
    // The terminal signals every process of its foreground group; npm forwards its copy too.
    process.kill(-(run.npm.pid as number), 'SIGINT');
    const ms = await stopped(run, postgres, since);
    expect(ms).toBeLessThan(STOP_MS);
    expect(run.logs()).toContain('"signal":"SIGINT"');
    expect(run.logs()).not.toContain('second signal');
    expect(run.logs()).toContain('"msg":"stopped"');
  }, 180_000);
});
