// The browser-side files of the reader and the dashboard, made once at start: they are part of
// the release, not data. Each is served under a name holding a hash of its content
// (`reader.3f2a9c0d1b7e.js`), cached by browsers for a year as immutable: a new release brings new
// names, so no page ever runs an old script. The plain names (`reader.js`) still answer,
// revalidated, for anyone who kept them.
//
// Scripts are written as small TypeScript modules and bundled here by esbuild, minified, with no
// build step to forget (docs/architecture.md); a bundle is kept for the next start while nothing
// it was made from changes (bundleCache.ts). A page loads one script, whatever the number of
// modules. What it imports with `import()` (the reader's panels, search and deep zoom) is bundled
// apart, as a chunk the browser fetches the first time it is used, under a name holding a hash of
// its content too (`sharePanel.5c1d0e9a7b2f.js`), beside the script. Each chunk is whole: it holds
// its own copy of every module it imports, so the script never waits for a shared one (esbuild's
// own splitting would have made the reader's script import five small chunks before it ran). A
// module imported by both must then hold no state of its own (the reader's words.ts reads the page).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';
import { type Bundle, cachedBundle } from './bundleCache.ts';
import { type Body, prepareBody, sendBody } from './sendBody.ts';

/** A file served as is; a script's `chunks` are the files it imports when first used. */
export type Asset = { file: string; hashed: string; type: string; body: Body; chunks: Asset[] };

const SCRIPT_TYPE = 'text/javascript; charset=utf-8';

const hashOf = (content: Buffer) => createHash('sha256').update(content).digest('hex').slice(0, 12);

const OPTIONS: BuildOptions = {
  bundle: true,
  format: 'esm',
  write: false,
  metafile: true,
  logLevel: 'silent',
  // Not written: the names only.
  outdir: '/',
};

/**
 * The modules that what `entry` bundles imports with `import()`, as written (`./sharePanel.ts`),
 * and their files. esbuild's own splitting finds them: without it, it would inline them.
 */
const lazyModules = (entry: string) => {
  const root = dirname(entry);
  const { metafile } = buildSync({
    ...OPTIONS,
    entryPoints: [entry],
    absWorkingDir: root,
    splitting: true,
  });
  const found = new Map<string, string>();
  for (const input of Object.values(metafile?.inputs ?? {})) {
    for (const i of input.imports) {
      if (i.kind !== 'dynamic-import' || !i.original) continue;
      const file = resolve(root, i.path);
      // Left as written in the bundles, then named by its chunk: one name, one module.
      if ((found.get(i.original) ?? file) !== file) {
        throw new Error(`${entry}: import("${i.original}") names two modules`);
      }
      found.set(i.original, file);
    }
  }
  return { lazy: found, read: inputsOf(root, metafile) };
};

/** The files a build read, by their full paths. */
const inputsOf = (root: string, metafile: Metafile | undefined) =>
  Object.keys(metafile?.inputs ?? {}).map((input) => resolve(root, input));

/**
 * The bundle of the script `entry` and of what it imports with `import()`: made by esbuild, or
 * the one kept from an earlier start while nothing it was made from changed (bundleCache.ts).
 */
export const bundleScript = (entry: string, cacheDir?: string): Bundle =>
  cachedBundle(entry, () => buildScript(entry), cacheDir);

const buildScript = (entry: string): { bundle: Bundle; inputs: string[] } => {
  const root = dirname(entry);
  const { lazy, read } = lazyModules(entry);
  const files = [entry, ...new Set(lazy.values())];
  // Each bundled whole (no splitting), its import() of the others left as written.
  const built = buildSync({
    ...OPTIONS,
    entryPoints: files,
    absWorkingDir: root,
    entryNames: '[dir]/[name]',
    external: [...lazy.keys()],
    minify: true,
    // Browsers of the last few years: modules, optional chaining, findLast.
    target: ['chrome100', 'firefox104', 'safari15.4'],
    legalComments: 'none',
  });
  // An external name imported statically would be a module the browser cannot find.
  for (const [name, input] of Object.entries(built.metafile?.inputs ?? {})) {
    const wrong = input.imports.find((i) => i.external && i.kind !== 'dynamic-import');
    if (wrong) throw new Error(`${name} imports ${wrong.path} statically, and others by import()`);
  }
  const bundled = new Map<string, string>();
  for (const [output, meta] of Object.entries(built.metafile?.outputs ?? {})) {
    const contents = built.outputFiles?.find((f) => f.path === resolve(root, output))?.contents;
    if (meta.entryPoint && contents) {
      bundled.set(resolve(root, meta.entryPoint), Buffer.from(contents).toString());
    }
  }
  // Then the import()s name the chunks, each named by its content (with the names in it).
  const chunks = new Map<string, Buffer>();
  const named = new Map<string, string>();
  const linked = (file: string, via: string[]): Buffer => {
    if (via.includes(file)) throw new Error(`import() in a circle: ${[...via, file].join(' → ')}`);
    let text = bundled.get(file);
    if (text === undefined) throw new Error(`esbuild made no bundle of ${file}`);
    for (const [written, module] of lazy) {
      const call = `import(${JSON.stringify(written)})`;
      if (!text.includes(call)) continue;
      const name = named.get(module) ?? chunkOf(module, [...via, file]);
      text = text.replaceAll(call, `import(${JSON.stringify(`./${name}`)})`);
    }
    return Buffer.from(text);
  };
  const chunkOf = (module: string, via: string[]) => {
    const content = linked(module, via);
    const name = `${basename(module, extname(module))}.${hashOf(content)}.js`;
    chunks.set(name, content);
    named.set(module, name);
    return name;
  };
  const bundle = { entry: linked(entry, []), chunks };
  // and this file: another option here (a target, minifying) is another bundle
  const inputs = new Set([...read, ...inputsOf(root, built.metafile), import.meta.filename]);
  return { bundle, inputs: [...inputs] };
};

export const makeAsset = (
  file: string,
  type: string,
  content: Buffer,
  chunks: Asset[] = [],
): Asset => {
  const dot = file.lastIndexOf('.');
  return {
    file,
    hashed: `${file.slice(0, dot)}.${hashOf(content)}${file.slice(dot)}`,
    type,
    body: prepareBody(content, 'best'),
    chunks,
  };
};

/** A chunk of a script: its name holds its hash already, and is the only one it answers to. */
const chunkAsset = (file: string, content: Buffer): Asset => ({
  file,
  hashed: file,
  type: SCRIPT_TYPE,
  body: prepareBody(content, 'best'),
  chunks: [],
});

/**
 * An asset made on first use, not when its module is imported: a command that merely loads the
 * module (the CLI's `--version`) never runs esbuild. The daemon uses them all at start.
 */
const lazyAsset = (
  file: string,
  type: string,
  make: () => { content: Buffer; chunks?: Asset[] },
): Asset => {
  let made: Asset | null = null;
  const asset = () => {
    if (!made) {
      const { content, chunks } = make();
      made = makeAsset(file, type, content, chunks);
    }
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
    get chunks() {
      return asset().chunks;
    },
  };
};

export const scriptAsset = (file: string, entry: string) =>
  lazyAsset(file, SCRIPT_TYPE, () => {
    const bundle = bundleScript(entry);
    const chunks = [...bundle.chunks].map(([name, content]) => chunkAsset(name, content));
    return { content: bundle.entry, chunks };
  });

/** What every page's stylesheet starts with (its reset, links, focus ring, screen-reader text). */
const BASE_STYLES = join(import.meta.dirname, 'assets', 'base.css');

/** A front's stylesheet, served as one file: base.css, then its own. */
export const stylesheetAsset = (file: string, path: string) =>
  lazyAsset(file, 'text/css; charset=utf-8', () => ({
    content: Buffer.concat([readFileSync(BASE_STYLES), Buffer.from('\n'), readFileSync(path)]),
  }));

/** Makes the assets now (the daemon, at start: the first page must not wait for esbuild). */
export const makeAssetsNow = (assets: Asset[]) => {
  for (const asset of assets) void asset.hashed;
};

/**
 * The asset a /<prefix>/<file> names among `assets` and their chunks, and whether by its hashed
 * (immutable) name.
 */
export const findAssetIn = (assets: Asset[], file: string) => {
  for (const asset of assets.flatMap((a) => [a, ...a.chunks])) {
    if (file === asset.hashed) return { asset, immutable: true };
    if (file === asset.file) return { asset, immutable: false };
  }
  return null;
};

/** How long a browser keeps what is named by a hash of its content: a year, never asking again. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Sends an asset findAssetIn found: a year by its hashed name, revalidated by its plain one. */
export const sendAsset = (
  req: IncomingMessage,
  res: ServerResponse,
  found: { asset: Asset; immutable: boolean },
) =>
  sendBody(
    req,
    res,
    200,
    {
      'Content-Type': found.asset.type,
      'Cache-Control': found.immutable ? IMMUTABLE : 'public, no-cache',
      'X-Content-Type-Options': 'nosniff',
    },
    found.asset.body,
  );
