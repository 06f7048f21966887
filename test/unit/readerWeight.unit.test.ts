// The reader's first load has a budget (issue 31): its script and stylesheet, as browsers receive
// them (brotli), weigh at most a quarter more than on 2026-11-28, before the polishing began:
// 8,966 bytes of script (25,443 minified) and 4,377 of stylesheet (17,851). Whatever the reader
// gains (languages, themes, sharing, the curl) must fit, or load only when used.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleScript } from '../../src/http/staticAssets.ts';

const READER = join(import.meta.dirname, '..', '..', 'src', 'reader');
const BEFORE = { script: 8_966, stylesheet: 4_377 };
const ALLOWED = Math.round((BEFORE.script + BEFORE.stylesheet) * 1.25);

describe('the reader’s weight', () => {
  it('script and stylesheet together, compressed, within a quarter of the 2026-11-28 weight', () => {
    const script = brotliCompressSync(bundleScript(join(READER, 'client', 'main.ts'))).length;
    const stylesheet = brotliCompressSync(
      readFileSync(join(READER, 'assets', 'reader.css')),
    ).length;
    expect(
      script + stylesheet,
      `script ${script} + stylesheet ${stylesheet} bytes (before: ${BEFORE.script} + ${BEFORE.stylesheet})`,
    ).toBeLessThanOrEqual(ALLOWED);
  });
});
