// officeToPdf with the real LibreOffice: documents generated here (test/support/officeFixtures.ts:
// flat OpenDocument turned into .docx/.pptx/.xlsx by soffice itself), then converted, and the PDFs read with poppler and qpdf.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffDocument } from '../../src/pdf/documentKind.ts';
import { ConversionFailed, officeToPdf } from '../../src/pdf/officePdf.ts';
import { FODS, FODT, fodp, makeOffice } from '../support/officeFixtures.ts';
import { zip } from '../support/zipWriter.ts';

let dir: string;
const file = (name: string) => join(dir, name);

const pdfinfoPages = (pdf: string) =>
  Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1]);
const pdftotext = (pdf: string) => execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
/** soffice processes of this test's conversions (their profiles carry this process's pid). */
const leftOver = () => {
  try {
    return execFileSync('pgrep', ['-f', `flipbook-office-${process.pid}-[a-zA-Z0-9]{6}`], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return ''; // pgrep exits 1 when nothing matches
  }
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'officePdf-int-'));
  await Promise.all([
    makeOffice(dir, 'report.fodt', FODT, ['docx']),
    makeOffice(dir, 'deck.fodp', fodp(3), ['pptx', 'ppt']),
    makeOffice(dir, 'prices.fods', FODS, ['xlsx']),
  ]);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('officeToPdf', () => {
  it('converts a .docx: its text, its heading, its hyperlink as a link annotation', async () => {
    const out = join(dir, 'out-docx');
    const { pdf, pages } = await officeToPdf(file('report.docx'), out);
    expect(pdf).toBe(join(out, 'report.pdf'));
    expect(pages).toBe(1);
    expect(pdfinfoPages(pdf)).toBe(1);
    expect(pdftotext(pdf)).toMatch(/Quarterly Heading[\s\S]*the flipbook site/);
    const json = execFileSync('qpdf', ['--json', pdf], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(json).toMatch(/"\/Subtype": "\/Link"/);
    expect(json).toContain('https://example.org/flipbook/page');
  }, 30_000);

  it('converts a .pptx (one page a slide) and an .xlsx, in parallel', async () => {
    const [deck, sheet] = await Promise.all([
      officeToPdf(file('deck.pptx'), join(dir, 'out-pptx')),
      officeToPdf(file('prices.xlsx'), join(dir, 'out-xlsx')),
    ]);
    expect(deck.pages).toBe(3);
    expect(pdfinfoPages(deck.pdf)).toBe(3);
    expect(pdftotext(deck.pdf)).toMatch(/Slide number 1[\s\S]*Slide number 3/);
    expect(sheet.pages).toBe(1);
    expect(pdftotext(sheet.pdf)).toContain('Price list cell');
  }, 30_000);

  it('tells a LibreOffice .ppt by its content and converts it', async () => {
    expect(sniffDocument(await readFile(file('deck.ppt')))).toEqual({
      kind: 'ppt',
      family: 'office',
    });
    expect((await officeToPdf(file('deck.ppt'), join(dir, 'out-ppt'))).pages).toBe(3);
  }, 30_000);

  it('refuses a truncated .docx as damaged, in words', async () => {
    const whole = await readFile(file('report.docx'));
    await writeFile(file('cut.docx'), whole.subarray(0, whole.length / 2));
    const failure = await officeToPdf(file('cut.docx'), join(dir, 'out-cut')).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ConversionFailed);
    expect(failure).toMatchObject({ reason: 'damaged', message: expect.stringMatching(/damaged/) });
  });

  it('refuses, in words, a .docx LibreOffice cannot load (damaged) and a ZIP bomb (before LibreOffice)', async () => {
    const ML = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
    const docx = (extra: { name: string; data: string; declaredSize?: number }[]) =>
      zip([
        {
          name: '[Content_Types].xml',
          data: `<Types><Override PartName="/word/document.xml" ContentType="${ML}"/></Types>`,
        },
        { name: 'word/document.xml', data: '<w:document><<<not xml' },
        ...extra,
      ]);
    await writeFile(file('garbage.docx'), docx([]));
    await expect(officeToPdf(file('garbage.docx'), join(dir, 'out-garbage'))).rejects.toMatchObject(
      {
        reason: 'damaged',
        message: 'The document is damaged: LibreOffice could not open it',
      },
    );
    await writeFile(
      file('bomb.docx'),
      docx([{ name: 'word/media/x.xml', data: 'x', declaredSize: 0xfffffff0 }]),
    );
    const started = Date.now();
    await expect(officeToPdf(file('bomb.docx'), join(dir, 'out-bomb'))).rejects.toMatchObject({
      reason: 'too-large',
      message: expect.stringMatching(/unpacks to 4096 MB/),
    });
    expect(Date.now() - started).toBeLessThan(500); // no LibreOffice was started
  }, 30_000);

  it('embeds no file an RTF field names (INCLUDEPICTURE file://), keeps its text', async () => {
    const secret = file('secret.png');
    await sharp({ create: { width: 40, height: 40, channels: 3, background: '#ffcc00' } })
      .png()
      .toFile(secret);
    await writeFile(
      file('fields.rtf'),
      `{\\rtf1\\ansi Before. {\\field{\\*\\fldinst INCLUDEPICTURE "file://${secret}" \\\\d}{\\fldrslt saved}} After.\\par}`,
    );
    const { pdf } = await officeToPdf(file('fields.rtf'), join(dir, 'out-fields'));
    const images = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' });
    expect(images.trim().split('\n')).toHaveLength(2); // the header lines alone: no image
    expect(pdftotext(pdf)).toMatch(/Before\.[\s\S]*After\./);
  }, 30_000);

  it('says too-large when LibreOffice runs out of the memory it is allowed', async () => {
    await expect(
      officeToPdf(file('report.docx'), join(dir, 'out-memory'), { memoryMb: 200 }),
    ).rejects.toMatchObject({
      reason: 'too-large',
    });
    expect(leftOver()).toBe('');
  }, 30_000);

  it('stops at its time limit with reason timeout, and leaves no soffice behind', async () => {
    const failure = await officeToPdf(file('report.docx'), join(dir, 'out-timeout'), {
      timeoutMs: 1,
    }).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      reason: 'timeout',
      message: 'Converting the document took too long',
    });
    expect(leftOver()).toBe('');
    // An abort mid-run too: the whole process group goes.
    const controller = new AbortController();
    const converting = officeToPdf(file('report.docx'), join(dir, 'out-abort'), {
      signal: controller.signal,
    });
    const running = new Promise<string>((seen) =>
      setTimeout(() => {
        seen(leftOver());
        controller.abort();
      }, 700),
    );
    await expect(converting).rejects.toMatchObject({ reason: 'timeout' });
    expect(await running).not.toBe(''); // the check sees a conversion that runs
    expect(leftOver()).toBe('');
  }, 30_000);
});
