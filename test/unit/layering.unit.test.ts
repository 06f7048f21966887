// The layers import downward only: a use case (src/app) knows nothing of HTTP, the domain knows
// nothing of use cases, HTTP or the store, and the contract (src/contract) is vocabulary the
// server and the CLI share, so it depends on the domain alone. Read from the files' own import
// lines, so a new file is checked the day it is added.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

const sourceFiles = async (dir: string): Promise<string[]> => {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
};

/** Every module a file imports or re-exports (static, side-effect and dynamic), from the root. */
const importsOf = async (file: string) => {
  const text = await readFile(join(ROOT, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gms),
    ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] as string);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)));
};

/** Whether `target` is one of `layers` or lies inside one of them. */
const within = (layers: string[], target: string) =>
  layers.some((layer) => target === layer || target.startsWith(`${layer}/`));

/** Each import of a file under `dir` that `barred` refuses, as "file imports target". */
const importsBarred = async (dir: string, barred: (target: string) => boolean) => {
  const found: string[] = [];
  for (const file of await sourceFiles(dir)) {
    for (const target of await importsOf(file)) {
      if (barred(target)) found.push(`${file} imports ${target}`);
    }
  }
  return found;
};

// A layer that must not reach the `forbidden` ones, and one that may reach only the `allowed`.
const violations = (dir: string, forbidden: string[]) =>
  importsBarred(dir, (target) => within(forbidden, target));
const outside = (dir: string, allowed: string[]) =>
  importsBarred(dir, (target) => !within(allowed, target));

describe('layering', () => {
  it('reads import lines the way TypeScript writes them', async () => {
    expect(await importsOf('test/unit/layering.unit.test.ts')).toEqual([]);
    expect(await importsOf('src/http/endpoints/flipbooks.ts')).toContain('src/app/flipbooks.ts');
    expect(await importsOf('src/app/flipbooks.ts')).toContain('src/readTables/flipbooks.ts');
  });

  it('src/app never imports src/http', async () => {
    expect(await violations('src/app', ['src/http'])).toEqual([]);
  });

  it('src/domain imports neither src/app, src/http nor src/store', async () => {
    expect(await violations('src/domain', ['src/app', 'src/http', 'src/store'])).toEqual([]);
  });

  it('src/contract depends on the domain alone', async () => {
    expect(
      await violations('src/contract', [
        'src/app',
        'src/http',
        'src/store',
        'src/readTables',
        'src/state',
        'src/queries',
        'src/cli',
      ]),
    ).toEqual([]);
  });

  it('the client package (packages/cli/src) reaches nothing of the server but the contract', async () => {
    const allowed = [
      'packages/cli/src',
      'src/contract',
      'src/domain',
      'src/atomicFile.ts',
      'package.json', // the version
    ];
    expect(await outside('packages/cli/src', allowed)).toEqual([]);
    // and what it may reach imports no further in (the contract and the domain are pure)
    expect(await violations('src/contract', ['src/store', 'src/http', 'src/app'])).toEqual([]);
  });

  it('the GitHub Action (packages/action/src) reaches only the client package and the contract', async () => {
    const allowed = ['packages/action/src', 'packages/cli/src', 'src/contract', 'src/domain'];
    expect(await outside('packages/action/src', allowed)).toEqual([]);
  });

  it('the client package has the server’s version', async () => {
    const version = async (file: string) =>
      JSON.parse(await readFile(join(ROOT, file), 'utf8')).version as string;
    expect(await version('packages/cli/package.json')).toBe(await version('package.json'));
  });

  it('has no import circle in src, type-only imports included', async () => {
    const files = await sourceFiles('src');
    const graph = new Map<string, string[]>();
    for (const file of files) {
      graph.set(
        file,
        (await importsOf(file)).filter((target) => files.includes(target)),
      );
    }
    // Depth-first; a file met again while still on the path closes a circle.
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') {
          circles.push([...path.slice(path.indexOf(next)), file, next].join(' -> '));
        } else if (!state.has(next)) visit(next, [...path, file]);
      }
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('the fronts (src/reader, src/dashboard) read through use cases: nothing of the tables and queries but types', async () => {
    const found: string[] = [];
    for (const dir of ['src/reader', 'src/dashboard']) {
      for (const file of await sourceFiles(dir)) {
        const text = await readFile(join(ROOT, file), 'utf8');
        for (const m of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s*['"]([^'"]+)['"]/gms)) {
          if (!m[1] && /\/(readTables|state|queries)\//.test(m[2] as string))
            found.push(`${file} imports ${m[2]}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('the tree says what replay rebuilds: every read table in src/readTables, listed there, and none elsewhere', async () => {
    const declaresTable = async (file: string) =>
      /^export const \w+: ReadTable = /m.test(await readFile(join(ROOT, file), 'utf8'));
    const index = await readFile(join(ROOT, 'src/readTables/index.ts'), 'utf8');
    for (const file of await sourceFiles('src/readTables')) {
      if (await declaresTable(file)) {
        const name = file.replace(/^src\/readTables\//, './');
        expect(index, `${file} is in the replay's list`).toContain(`from '${name}'`);
      }
    }
    const elsewhere: string[] = [];
    for (const dir of ['src/state', 'src/queries', 'src/app', 'src/store']) {
      for (const file of await sourceFiles(dir))
        if (await declaresTable(file)) elsewhere.push(file);
    }
    expect(elsewhere).toEqual([]);
  });

  it('the tables and queries know nothing of the use cases, HTTP or the fronts', async () => {
    for (const dir of ['src/readTables', 'src/state', 'src/queries']) {
      expect(
        await violations(dir, ['src/app', 'src/http', 'src/reader', 'src/dashboard', 'src/cli']),
      ).toEqual([]);
    }
  });

  it('keeps files small: none in src over 450 lines (stylesheets aside), each over 300 saying why it is one', async () => {
    /** Over 450 and still to be split (issue 42): none left. */
    const TO_SPLIT: string[] = [];
    const long: string[] = [];
    const unexplained: string[] = [];
    for (const file of await sourceFiles('src')) {
      const text = await readFile(join(ROOT, file), 'utf8');
      const lines = text.split('\n').length;
      if (lines > 450 && !TO_SPLIT.includes(file)) long.push(`${file}: ${lines}`);
      const head = text.split('\n').slice(0, 40).join('\n');
      if (lines > 300 && !TO_SPLIT.includes(file) && !/One file \(over 300 lines\)/.test(head)) {
        unexplained.push(`${file}: ${lines}`);
      }
    }
    expect(long).toEqual([]);
    expect(unexplained).toEqual([]);
  });
});
