// The reader's first load has a budget (issue 31): its script and stylesheet, as browsers receive
// them (brotli), weigh at most a quarter more than on 2026-11-28, before the polishing began:
// 8,966 bytes of script (25,443 minified) and 4,377 of stylesheet (17,851). Whatever the reader
// gains (languages, themes, sharing, the curl) must fit, or load only when used: the panels, the
// search and deep zoom are chunks of their own, fetched the first time they are used
// (src/http/staticAssets.ts), weighed here apart and reported.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleScript } from '../../src/http/staticAssets.ts';

const READER = join(import.meta.dirname, '..', '..', 'src', 'reader');
const BEFORE = { script: 8_966, stylesheet: 4_377 };
const ALLOWED = Math.round((BEFORE.script + BEFORE.stylesheet) * 1.25);
/** What a reader fetches only when it uses it (a module of src/reader/client each). */
const ON_USE = [
  'contentsPanel',
  'thumbnailsPanel',
  'gotoPanel',
  'sharePanel',
  'searchPanel',
  'deepZoom',
  // a preview's Changes panel and compare view (loaded at once only for #compare=N)
  'changesPanel',
  // the text of the pages a reader may jump to, once the first pages are in
  'wordsAhead',
];

const bundle = bundleScript(join(READER, 'client', 'main.ts'));
const brotli = (content: Buffer) => brotliCompressSync(content).length;

describe('the reader’s weight', () => {
  it('first load: script and stylesheet, compressed, within a quarter of the 2026-11-28 weight', () => {
    const script = brotli(bundle.entry);
    const stylesheet = brotli(readFileSync(join(READER, 'assets', 'reader.css')));
    const chunks = [...bundle.chunks].map(([name, content]) => `${name} ${brotli(content)}`);
    console.info(
      `first load: script ${script} + stylesheet ${stylesheet} = ${script + stylesheet} bytes ` +
        `of ${ALLOWED} allowed; on use: ${chunks.join(', ')}`,
    );
    expect(
      script + stylesheet,
      `script ${script} + stylesheet ${stylesheet} bytes (before: ${BEFORE.script} + ${BEFORE.stylesheet})`,
    ).toBeLessThanOrEqual(ALLOWED);
  });

  it('the panels, search and deep zoom are chunks the script imports only when used', () => {
    const script = bundle.entry.toString();
    // One request before the reader runs: the script imports nothing statically.
    expect(script).not.toMatch(/(^|[;}\s])import\s*[{"*\w]/);
    expect(script).not.toMatch(/\bfrom\s*"/);
    const names = [...bundle.chunks.keys()];
    for (const module of ON_USE) {
      const chunk = names.find((name) => new RegExp(`^${module}\\.[0-9a-f]{12}\\.js$`).test(name));
      expect(chunk, `${module} in ${names.join(', ')}`).toBeDefined();
      expect(script).toContain(`import("./${chunk}")`);
      // Whole in itself: a chunk imports no other chunk either.
      expect(bundle.chunks.get(chunk ?? '')?.toString()).not.toMatch(/\bfrom\s*"/);
    }
    expect(names).toHaveLength(ON_USE.length);
  });
});
