// The scripts esbuild bundles (staticAssets.ts) kept on disk with the content hash of every file
// that went into them, and used again while all of those are unchanged: a start no longer spends
// 0.2-0.5 s of CPU bundling the same scripts again (a deployer's restart; the test suite's hundred
// daemons). A changed or missing input, another esbuild, or an unreadable entry makes a new
// bundle, written for the next start. Kept inside the install (node_modules/.cache), which only
// its owner writes: never under a shared /tmp, where another user could leave a script of theirs.
// Where it cannot be written (a read-only image), every start bundles, as before.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { version as esbuildVersion } from 'esbuild';

/** A bundled script: what a page loads (`entry`), and the chunks it imports, by file name. */
export type Bundle = { entry: Buffer; chunks: Map<string, Buffer> };

export const BUNDLE_CACHE_DIR = resolve(
  import.meta.dirname,
  '../../node_modules/.cache/flipbook-bundles',
);

type Kept = {
  esbuild: string;
  /** every file read to make it, with its content's hash */
  inputs: [string, string][];
  entry: string;
  chunks: [string, string][];
};

const sha256 = (content: Buffer | string) => createHash('sha256').update(content).digest('hex');

const hashOfFile = (file: string) => {
  try {
    return sha256(readFileSync(file));
  } catch {
    return null; // gone: the bundle is stale
  }
};

const keptFile = (dir: string, entry: string) => join(dir, `${sha256(entry).slice(0, 16)}.json`);

/** The kept bundle, or null: none, stale, or not what this code writes (damaged, hand-edited). */
const read = (file: string): Bundle | null => {
  // Whatever is in the file, a start goes on: a bundle it cannot take is made again.
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Kept;
    if (kept.esbuild !== esbuildVersion) return null;
    if (!kept.inputs.every(([input, hash]) => hashOfFile(input) === hash)) return null;
    if (typeof kept.entry !== 'string') return null;
    return {
      entry: Buffer.from(kept.entry, 'base64'),
      chunks: new Map(kept.chunks.map(([name, content]) => [name, Buffer.from(content, 'base64')])),
    };
  } catch {
    return null;
  }
};

const write = (file: string, bundle: Bundle, inputs: string[]) => {
  const kept: Kept = {
    esbuild: esbuildVersion,
    inputs: inputs.flatMap((input) => {
      const hash = hashOfFile(input);
      return hash ? [[input, hash] as [string, string]] : [];
    }),
    entry: bundle.entry.toString('base64'),
    chunks: [...bundle.chunks].map(([name, content]) => [name, content.toString('base64')]),
  };
  // An input that could not be read now is not one a later start could check: keep nothing.
  if (kept.inputs.length !== inputs.length) return;
  const temporary = `${file}.${randomUUID().slice(0, 8)}.part`;
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(temporary, JSON.stringify(kept), { flag: 'wx' });
    renameSync(temporary, file); // whole or not at all, for a daemon starting beside us
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // no folder to have written it in
    }
  }
};

/**
 * The bundle of `entry`: the one kept in `dir` while every input it was made from is unchanged,
 * else `make()`'s, kept for the next time. `make` names the files it read (esbuild's metafile,
 * and the code that bundles: another setting there is another bundle).
 */
export const cachedBundle = (
  entry: string,
  make: () => { bundle: Bundle; inputs: string[] },
  dir = BUNDLE_CACHE_DIR,
): Bundle => {
  const file = keptFile(dir, entry);
  const kept = read(file);
  if (kept) return kept;
  const { bundle, inputs } = make();
  write(file, bundle, inputs);
  return bundle;
};
