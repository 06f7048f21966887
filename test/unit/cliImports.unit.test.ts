// What the admin command loads before it can say its version or its help (issue 41, item 6): a
// command's start must not pay for the daemon, the database driver, the OpenID client, the
// password dictionaries or the UI (measured: `--version` loaded 147 modules, among them the
// zxcvbn dictionaries, openid-client and every read table's projection, 0.8-3 s here). Timing
// belongs to `npm run bench:cli`; this says what is loaded.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FLIPBOOK, NODE, ROOT } from '../support/cli.ts';

/** Records every module loaded and prints their URLs as JSON on stderr at exit. */
const TRACE = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
import { writeSync } from 'node:fs';
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on('exit', () => writeSync(2, '\\nLOADED ' + JSON.stringify(seen) + '\\n'));
`)}`;

const loadedBy = (args: string[]) => {
  const run = spawnSync(NODE, ['--import', TRACE, FLIPBOOK, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_COMPILE_CACHE: '' },
  });
  expect(run.status, run.stderr).toBe(0);
  const line = run.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  const urls = JSON.parse(line?.slice('LOADED '.length) ?? '[]') as string[];
  const packages = new Set(
    urls
      .map((url) => url.match(/node_modules\/((@[^/]+\/)?[^/]+)\//)?.[1])
      .filter((name): name is string => name !== undefined),
  );
  const own = urls
    .filter((url) => url.startsWith('file:') && !url.includes('/node_modules/'))
    .map((url) => url.slice(`file://${ROOT}/`.length));
  return { stdout: run.stdout, packages: [...packages].sort(), own };
};

describe('the admin command starts light', () => {
  it.each([['--version'], ['--help']])('%s loads commander alone of the packages', (flag) => {
    const { stdout, packages, own } = loadedBy([flag]);
    expect(stdout).toMatch(flag === '--version' ? /^\d+\.\d+\.\d+\n$/ : /Usage: flipbook/);
    expect(packages).toEqual(['commander']);
    // none of what only a running command needs
    const heavy = own.filter((path) =>
      /^(src\/daemon\.ts|src\/store\/store\.ts|src\/app\/accounts\/(sso|passwords|people)\.ts|src\/readTables\/|src\/state\/|src\/queries\/|src\/reader\/|src\/dashboard\/|src\/http\/api\.ts|src\/worker\/workerPool\.ts)/.test(
        path,
      ),
    );
    expect(heavy).toEqual([]);
  });
});
