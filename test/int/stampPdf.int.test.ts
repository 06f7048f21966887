// Watermarked copies of real PDFs (src/pdf/stampPdf.ts), read back with poppler as a reader's
// tools would: the address on every page (pdftotext, one page at a time), the page count and
// the document's own text unchanged, rotated and odd-sized pages, an address outside Latin-1,
// and the refusals (damaged, password) leaving nothing behind.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StampFailure, stampPdf } from '../../src/pdf/stampPdf.ts';
import { corpus } from '../support/corpus.ts';

const run = promisify(execFile);
const ADDRESS = 'bob@example.org · 2026-12-03';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flipbook-stamp-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const pageCount = async (pdf: string) =>
  Number(/^Pages:\s+(\d+)/m.exec((await run('pdfinfo', [pdf])).stdout)?.[1]);

const pageText = async (pdf: string, page: number) =>
  (await run('pdftotext', ['-f', `${page}`, '-l', `${page}`, pdf, '-'])).stdout;

/** A text's words, sorted, without the direction marks poppler puts around bidi runs. */
const words = (text: string) =>
  text
    .replace(/[\u202a-\u202e]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .sort();

describe('stampPdf', () => {
  it.each([
    ['text_multicolumn.pdf', 'two columns of text'],
    ['img_photos-issue5481.pdf', 'photos, landscape'],
    ['odd_habibi-rotated.pdf', '/Rotate 90, 180, 270 and 0'],
    ['odd_cardinal.pdf', 'portrait and landscape pages'],
    ['odd_wide-issue19207.pdf', 'a 10:1 strip'],
    ['enc_algo4.pdf', 'encrypted with an empty user password'],
  ])('marks every page of %s (%s), leaving its own text as it was', async (name) => {
    const input = corpus(name);
    const output = join(dir, `stamped-${name}`);
    const { pages } = await stampPdf(input, output, ADDRESS);
    expect(await pageCount(output)).toBe(pages);
    expect(pages).toBe(await pageCount(input));
    for (let page = 1; page <= pages; page++) {
      const [before, after] = await Promise.all([pageText(input, page), pageText(output, page)]);
      expect(after).toContain(ADDRESS);
      // The page's own words come out as before: the rotated rows are not read as text (on a
      // page turned by /Rotate, poppler may group the bidi runs of a line differently).
      expect(words(after.replace(ADDRESS, ''))).toEqual(words(before));
    }
  });

  it('marks 300 pages of a book in one pass', async () => {
    const book = join(dir, 'book300.pdf');
    await run('qpdf', ['--empty', '--pages', corpus('text_freeculture.pdf'), '1-300', '--', book]);
    const output = join(dir, 'book300-stamped.pdf');
    expect((await stampPdf(book, output, ADDRESS)).pages).toBe(300);
    for (const page of [1, 150, 300]) expect(await pageText(output, page)).toContain(ADDRESS);
  });

  it('writes a domain outside Latin-1 in punycode, and Latin-1 as it is', async () => {
    const output = join(dir, 'idn.pdf');
    const { drawn } = await stampPdf(corpus('text_multicolumn.pdf'), output, 'user@例え.jp');
    expect(drawn).toBe('user@xn--r8jz45g.jp');
    expect(await pageText(output, 2)).toContain('user@xn--r8jz45g.jp');
    await stampPdf(corpus('text_multicolumn.pdf'), output, 'bob@bücher.de');
    expect(await pageText(output, 1)).toContain('bob@bücher.de');
  });

  it('refuses a damaged PDF and one that needs a password, writing nothing', async () => {
    const refusal = (name: string) =>
      stampPdf(corpus(name), join(dir, 'refused.pdf'), ADDRESS).then(
        () => null,
        (error: unknown) => error,
      );
    const damaged = await refusal('bad_invalid.pdf');
    expect(damaged).toBeInstanceOf(StampFailure);
    expect((damaged as StampFailure).reason).toBe('damaged');
    const locked = await refusal('enc_skew-encrypted.pdf');
    expect(locked).toBeInstanceOf(StampFailure);
    expect((locked as StampFailure).reason).toBe('password');
    const garbage = join(dir, 'garbage.pdf');
    await writeFile(garbage, '%PDF-1.4\nnothing here\n');
    expect(await refusal(garbage)).toBeInstanceOf(StampFailure);
    expect(
      (await readdir(dir)).filter((f) => f.startsWith('refused') || f.startsWith('.stamp')),
    ).toEqual([]);
  });

  it('never leaves half a file: a qpdf stopped by the clock mid-write leaves nothing', async () => {
    // A stand-in qpdf that counts pages as the real one does, then writes half a PDF and hangs.
    const tools = join(dir, 'tools');
    await run('mkdir', ['-p', tools]);
    for (const tool of ['pdfinfo', 'pdftotext', 'pdftoppm', 'pdftocairo']) {
      await run('ln', ['-sf', `/usr/bin/${tool}`, join(tools, tool)]);
    }
    const script = [
      '#!/bin/bash',
      '[[ $1 == --show-npages ]] && exec /usr/bin/qpdf "$@"',
      'for out; do :; done',
      'printf \'%%PDF-1.4\\n1 0 obj\' > "$out"',
      'exec sleep 60',
      '',
    ].join('\n');
    await writeFile(join(tools, 'qpdf'), script, { mode: 0o755 });
    const output = join(dir, 'stopped.pdf');
    const started = Date.now();
    const error = await stampPdf(corpus('text_multicolumn.pdf'), output, ADDRESS, {
      timeoutMs: 1500,
      limits: { memoryMb: 1536, cpuSeconds: 60, toolDir: tools },
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error).toBeInstanceOf(StampFailure);
    expect((error as StampFailure).reason).toBe('timeout');
    const left = (await readdir(dir)).filter(
      (f) => f.startsWith('stopped') || f.startsWith('.stamp'),
    );
    expect(left).toEqual([]);
  });
});
