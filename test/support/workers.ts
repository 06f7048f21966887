// `flipbook worker` processes for tests, each in its own process group (so the pdftoppm children
// a SIGKILL orphans are reaped too), stopped by stopWorkers() in an afterAll.
import { type ChildProcess, spawn } from 'node:child_process';
import { FLIPBOOK, NODE, ROOT } from './cli.ts';
import { S3_ENV } from './s3Env.ts';

export type Worker = {
  child: ChildProcess;
  pid: number;
  logs: () => string;
  stop: () => Promise<void>;
};

/** every worker started and not yet stopped, in order */
export const started: Worker[] = [];

/**
 * Starts `flipbook worker` in its own process group (so the pdftoppm children a SIGKILL orphans
 * can be reaped afterwards) and waits for its ready line.
 */
export const startWorker = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<Worker> =>
  new Promise((done, fail) => {
    const child = spawn(NODE, [FLIPBOOK, 'worker', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', ...S3_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const worker: Worker = {
      child,
      pid: child.pid ?? 0,
      logs: () => output,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(timer);
        }
        // Whatever is left in its group (pdftoppm orphaned by a SIGKILL) goes too.
        try {
          process.kill(-worker.pid, 'SIGKILL');
        } catch {
          // the group is empty
        }
      },
    };
    started.push(worker);
    const timer = setTimeout(() => fail(new Error(`worker not ready in 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"flipbook worker ready"')) {
        clearTimeout(timer);
        done(worker);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`worker exited with ${code ?? signal}:\n${output}`));
    });
  });

export const stopWorkers = async () => {
  await Promise.all(started.splice(0).map((w) => w.stop()));
};
