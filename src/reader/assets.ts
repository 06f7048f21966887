// The reader's script and stylesheet, read once at start: they are part of the release, not data.
// Each is served under a name holding a hash of its content (`reader.3f2a9c0d1b7e.js`), cached
// by browsers for a year as immutable: a new release brings new names, so no page ever runs an
// old script. The plain names (`reader.js`) still answer, revalidated, for anyone who kept them.
//
// The script is written as small modules (src/reader/client/) and bundled here, once, by esbuild
// into one minified file: one request, whatever the number of modules, and no build step to
// forget (see docs/architecture.md).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { type Body, prepareBody } from '../http/sendBody.ts';

export type Asset = { file: string; hashed: string; type: string; body: Body };

const bundle = (entry: string) => {
  const result = buildSync({
    entryPoints: [join(import.meta.dirname, 'client', entry)],
    bundle: true,
    format: 'esm',
    minify: true,
    // Browsers of the last few years: modules, optional chaining, findLast.
    target: ['chrome100', 'firefox104', 'safari15.4'],
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return Buffer.from(result.outputFiles[0]?.contents ?? new Uint8Array());
};

const load = (file: string, type: string, content: Buffer): Asset => {
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  return {
    file,
    hashed: `${file.slice(0, dot)}.${hash}${file.slice(dot)}`,
    type,
    body: prepareBody(content, 'best'),
  };
};

export const SCRIPT = load('reader.js', 'text/javascript; charset=utf-8', bundle('main.js'));
export const STYLESHEET = load(
  'reader.css',
  'text/css; charset=utf-8',
  readFileSync(join(import.meta.dirname, 'assets', 'reader.css')),
);

/** The asset a /reader/<file> names, and whether by its hashed (immutable) name. */
export const findAsset = (file: string) => {
  for (const asset of [SCRIPT, STYLESHEET]) {
    if (file === asset.hashed) return { asset, immutable: true };
    if (file === asset.file) return { asset, immutable: false };
  }
  return null;
};

export const assetUrl = (asset: Asset) => `/reader/${asset.hashed}`;
