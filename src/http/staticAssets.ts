// The browser-side files of the reader and the dashboard, made once at start: they are part of
// the release, not data. Each is served under a name holding a hash of its content
// (`reader.3f2a9c0d1b7e.js`), cached by browsers for a year as immutable: a new release brings new
// names, so no page ever runs an old script. The plain names (`reader.js`) still answer,
// revalidated, for anyone who kept them.
//
// Scripts are written as small TypeScript modules and bundled here by esbuild into one minified file: one
// request, whatever the number of modules, and no build step to forget (docs/architecture.md).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildSync } from 'esbuild';
import { type Body, prepareBody } from './sendBody.ts';

export type Asset = { file: string; hashed: string; type: string; body: Body };

export const bundleScript = (entry: string) => {
  const result = buildSync({
    entryPoints: [entry],
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

export const makeAsset = (file: string, type: string, content: Buffer): Asset => {
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  return {
    file,
    hashed: `${file.slice(0, dot)}.${hash}${file.slice(dot)}`,
    type,
    body: prepareBody(content, 'best'),
  };
};

/**
 * An asset made on first use, not when its module is imported: a command that merely loads the
 * module (the CLI's `--version`) never runs esbuild. The daemon uses them all at start.
 */
const lazyAsset = (file: string, type: string, content: () => Buffer): Asset => {
  let made: Asset | null = null;
  const asset = () => {
    made ??= makeAsset(file, type, content());
    return made;
  };
  return {
    file,
    type,
    get hashed() {
      return asset().hashed;
    },
    get body() {
      return asset().body;
    },
  };
};

export const scriptAsset = (file: string, entry: string) =>
  lazyAsset(file, 'text/javascript; charset=utf-8', () => bundleScript(entry));

export const stylesheetAsset = (file: string, path: string) =>
  lazyAsset(file, 'text/css; charset=utf-8', () => readFileSync(path));

/** Makes the assets now (the daemon, at start: the first page must not wait for esbuild). */
export const makeAssetsNow = (assets: Asset[]) => {
  for (const asset of assets) void asset.hashed;
};

/** The asset a /<prefix>/<file> names among `assets`, and whether by its hashed (immutable) name. */
export const findAssetIn = (assets: Asset[], file: string) => {
  for (const asset of assets) {
    if (file === asset.hashed) return { asset, immutable: true };
    if (file === asset.file) return { asset, immutable: false };
  }
  return null;
};
