// Builds the GitHub Action: packages/action/src bundled with everything it uses (@actions/core,
// undici, the client's modules) into ONE file, dist/index.mjs, which is committed: a JavaScript
// action runs from the repository as it is, with no install step (action.yml's `runs.main`).
// Deterministic (no hashes, no dates, no absolute paths), so test/unit/actionBundle.unit.test.ts
// can build it again and say when the committed file is stale.
//
//   node packages/action/build.ts            rebuilds packages/action/dist/index.mjs
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { FORBIDDEN_IN_CLIENT } from '../cli/build.ts';

const HERE = import.meta.dirname;

// Bundled CommonJS modules (undici, tunnel) require Node's own modules: in an ES module they
// need a `require`.
const REQUIRE_SHIM =
  "import { createRequire as __flipbookRequire } from 'node:module';\nconst require = __flipbookRequire(import.meta.url);";

/** The bundle's text, and the inputs it took (for the layering check). */
export const bundleAction = async (): Promise<string> => {
  const result = await build({
    absWorkingDir: resolve(HERE, '../..'),
    entryPoints: [join(HERE, 'src/main.ts')],
    write: false,
    outfile: 'index.mjs',
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Readable where it matters (a reviewer can read what runs with their token) yet small:
    // whitespace only; names stay.
    minifyWhitespace: true,
    // The licences of what is bundled, at the end of the file.
    legalComments: 'eof',
    banner: { js: REQUIRE_SHIM },
    define: { 'process.env.NODE_ENV': '"production"' },
    alias: {
      '@actions/http-client/lib/auth': join(HERE, 'httpClientStub.ts'),
      '@actions/http-client': join(HERE, 'httpClientStub.ts'),
    },
    // node_modules is a link in a worktree: its real path would put "../../main/node_modules" in
    // the module names esbuild writes, and the bundle would differ from one checkout to another.
    preserveSymlinks: true,
    metafile: true,
    logLevel: 'silent',
  });
  const forbidden = Object.keys(result.metafile.inputs).filter((input) =>
    FORBIDDEN_IN_CLIENT.test(input),
  );
  if (forbidden.length > 0) {
    throw new Error(`the action would bundle server code: ${forbidden.slice(0, 5).join(', ')}`);
  }
  const [file] = result.outputFiles;
  if (!file) throw new Error('esbuild wrote nothing');
  return file.text;
};

export const DIST = join(HERE, 'dist/index.mjs');

if (process.argv[1] === import.meta.filename) {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const text = await bundleAction();
  const before = await readFile(DIST, 'utf8').catch(() => '');
  await mkdir(join(HERE, 'dist'), { recursive: true });
  await writeFile(DIST, text);
  console.log(
    `${DIST}: ${(Buffer.byteLength(text) / 1024).toFixed(0)} KB${before === text ? ' (unchanged)' : ''}`,
  );
}
