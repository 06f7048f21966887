// A script's bundle is kept on disk and used again only while every file it was made from is
// unchanged (src/http/bundleCache.ts): a start skips esbuild, and an edit is never served stale.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleScript } from '../../src/http/staticAssets.ts';
import { scratchDirs } from '../support/scratchDirs.ts';

const tempDir = scratchDirs('flipbook-bundles-');

/** A script of three modules: main, a module it imports, and one it imports when used. */
const scriptIn = async (dir: string) => {
  await writeFile(
    join(dir, 'main.ts'),
    `import { word } from './word.ts';\ndocument.title = word;\n` +
      `document.onclick = () => import('./later.ts').then((m) => m.run());\n`,
  );
  await writeFile(join(dir, 'word.ts'), `export const word: string = 'first';\n`);
  await writeFile(join(dir, 'later.ts'), `export const run = () => console.log('later one');\n`);
  return join(dir, 'main.ts');
};

/** Replaces the kept bundle's script with `text`, its inputs left as they were. */
const tamper = async (cache: string, text: string) => {
  const [file] = await readdir(cache);
  const path = join(cache, file ?? '');
  const kept = JSON.parse(await readFile(path, 'utf8'));
  kept.entry = Buffer.from(text).toString('base64');
  await writeFile(path, JSON.stringify(kept));
};

describe('bundles kept between starts', () => {
  it('uses the kept bundle while its files are unchanged, and bundles again after any edit', async () => {
    const [source, cache] = await Promise.all([tempDir(), tempDir()]);
    const entry = await scriptIn(source);
    const first = bundleScript(entry, cache);
    expect(first.entry.toString()).toContain('first');
    expect([...first.chunks.values()].join()).toContain('later one');
    expect(await readdir(cache)).toHaveLength(1);

    // Kept: what is in the cache is what comes back (a marker put there shows it was read).
    await tamper(cache, 'kept marker');
    expect(bundleScript(entry, cache).entry.toString()).toBe('kept marker');

    // A module it imports, edited: bundled again, with the edit.
    await writeFile(join(source, 'word.ts'), `export const word: string = 'second';\n`);
    const edited = bundleScript(entry, cache);
    expect(edited.entry.toString()).toContain('second');
    expect(edited.entry.toString()).not.toContain('kept marker');

    // A module it imports only when used counts too.
    await tamper(cache, 'kept marker');
    await writeFile(join(source, 'later.ts'), `export const run = () => console.log('other');\n`);
    const again = bundleScript(entry, cache);
    expect(again.entry.toString()).not.toContain('kept marker');
    expect([...again.chunks.values()].join()).toContain('other');
  });

  it('bundles again over a kept file it cannot take (damaged, or not its shape)', async () => {
    const [source, cache] = await Promise.all([tempDir(), tempDir()]);
    const entry = await scriptIn(source);
    const made = bundleScript(entry, cache);
    const [file] = await readdir(cache);
    const path = join(cache, file ?? '');
    const kept = JSON.parse(await readFile(path, 'utf8'));
    for (const damaged of [
      '{"esbuild":',
      JSON.stringify({ ...kept, chunks: null }),
      JSON.stringify({ ...kept, inputs: 'none' }),
      JSON.stringify({ ...kept, entry: 42 }),
    ]) {
      await writeFile(path, damaged);
      expect(bundleScript(entry, cache).entry.equals(made.entry)).toBe(true);
    }
  });

  it('bundles without keeping anything where the cache cannot be written', async () => {
    const source = await tempDir();
    const entry = await scriptIn(source);
    // a file where the cache's folder would be: nothing can be written under it
    const blocked = join(source, 'not-a-folder');
    await writeFile(blocked, '');
    const bundle = bundleScript(entry, join(blocked, 'cache'));
    expect(bundle.entry.toString()).toContain('first');
    expect(bundleScript(entry, join(blocked, 'cache')).entry.equals(bundle.entry)).toBe(true);
  });
});
