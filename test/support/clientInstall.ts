// The client package as a pipeline meets it: the machine's own Node (20 here and in CI), not the
// project's Node 24, a PATH without the project's binaries, an empty npm prefix and cache, and
// the install line exactly as docs and pages show it, run by a shell.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ROOT } from './cli.ts';

/** The first `node` on PATH that is not the project's own (node_modules/.bin): the machine's. */
export const systemNode = () => {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    try {
      const real = realpathSync(candidate);
      if (!real.startsWith(ROOT) && statSync(real).isFile()) return candidate;
    } catch {
      // not there
    }
  }
  throw new Error('no system Node.js on PATH besides the project’s own');
};

export type Run = { code: number; stdout: string; stderr: string };

export const run = (file: string, args: string[], env: NodeJS.ProcessEnv, cwd = tmpdir()) =>
  new Promise<Run>((resolve) => {
    execFile(file, args, { env, cwd, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });

/** A fresh machine's environment for the client: its `npm install -g` goes to `prefix`. */
export const pipelineEnv = () => {
  const node = systemNode();
  const prefix = mkdtempSync(join(tmpdir(), 'flipbook-cli-prefix-'));
  const path = [
    join(prefix, 'bin'),
    dirname(node),
    ...(process.env.PATH ?? '').split(delimiter).filter((d) => !d.startsWith(ROOT)),
  ].join(delimiter);
  const env: NodeJS.ProcessEnv = {
    PATH: path,
    HOME: mkdtempSync(join(tmpdir(), 'flipbook-cli-home-')),
    npm_config_prefix: prefix,
    npm_config_cache: mkdtempSync(join(tmpdir(), 'flipbook-cli-npm-cache-')),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  return { node, prefix, env, flipbook: join(prefix, 'bin', 'flipbook') };
};

/** A line of shell, as a person pastes it. */
export const shell = (line: string, env: NodeJS.ProcessEnv) => run('sh', ['-c', line], env);

/** Bytes of every file under `dir`, and the package folders (node_modules/<name>) in it. */
export const footprint = (dir: string) => {
  let bytes = 0;
  const packages: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        if (dirname(path).endsWith('node_modules') && !entry.name.startsWith('.')) {
          packages.push(entry.name);
        }
        walk(path);
      } else if (entry.isFile()) bytes += statSync(path).size;
    }
  };
  walk(dir);
  return { bytes, packages };
};
