// Runs the real `flipbook` command (bin/flipbook on the project's Node 24) as a child process.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { S3_ENV } from './s3Env.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const NODE = resolve(ROOT, 'node_modules/.bin/node');
export const FLIPBOOK = resolve(ROOT, 'bin/flipbook');

export type CliResult = { code: number; stdout: string; stderr: string };

/** `root` runs another checkout's build (a benchmark's baseline), with that checkout's Node. */
export const flipbook = (
  args: string[],
  env: NodeJS.ProcessEnv = {},
  root = ROOT,
): Promise<CliResult> =>
  new Promise((done) => {
    execFile(
      resolve(root, 'node_modules/.bin/node'),
      [resolve(root, 'bin/flipbook'), ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: '', ...S3_ENV, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });

export type Daemon = {
  process: ChildProcess;
  url: string;
  startupMs: number;
  logs: () => string;
  stop: () => Promise<number | null>;
};

/**
 * Starts `flipbook serve` on a random port and waits for its ready line. `prefix` runs it under
 * another command that execs it (`taskset -c 0`: the benchmark's one core), keeping its pid;
 * `root`, another checkout's build.
 */
export const startDaemon = (
  args: string[],
  env: NodeJS.ProcessEnv = {},
  prefix: string[] = [],
  root = ROOT,
): Promise<Daemon> =>
  new Promise((done, fail) => {
    const node = resolve(root, 'node_modules/.bin/node');
    const command = [
      ...prefix,
      node,
      resolve(root, 'bin/flipbook'),
      'serve',
      '--port',
      '0',
      ...args,
    ];
    const child = spawn(command[0] as string, command.slice(1), {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '', ...S3_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => fail(new Error(`daemon not ready in 30 s:\n${output}`)), 30_000);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.includes('"flipbook ready on')) continue;
        const entry = JSON.parse(line) as { publicUrl: string; startupMs: number };
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.on('data', (more: Buffer) => {
          output += more.toString();
        });
        done({
          process: child,
          url: entry.publicUrl,
          startupMs: entry.startupMs,
          logs: () => output,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
        return;
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`daemon exited with ${code}:\n${output}`));
    });
  });
