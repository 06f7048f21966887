// officeToPdf with the real LibreOffice: documents generated here (flat OpenDocument turned into
// .docx/.pptx/.xlsx by soffice itself), then converted, and the PDFs read with poppler and qpdf.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffDocument } from '../../src/pdf/documentKind.ts';
import { ConversionFailed, officeToPdf } from '../../src/pdf/officePdf.ts';
import { zip } from '../support/zipWriter.ts';

const run = promisify(execFile);
const NS = (name: string, uri: string) =>
  `xmlns:${name}="urn:oasis:names:tc:opendocument:xmlns:${uri}"`;
const HEAD = `<?xml version="1.0" encoding="UTF-8"?><office:document ${NS('office', 'office:1.0')} ${NS('text', 'text:1.0')} ${NS('table', 'table:1.0')} ${NS('draw', 'drawing:1.0')} ${NS('svg', 'svg-compatible:1.0')} ${NS('style', 'style:1.0')} xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2"`;

const FODT = `${HEAD} office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text>
<text:h text:outline-level="1">Quarterly Heading</text:h>
<text:p>See <text:a xlink:type="simple" xlink:href="https://example.org/flipbook/page">the flipbook site</text:a> for more.</text:p>
</office:text></office:body></office:document>`;

const slide = (n: number) =>
  `<draw:page draw:name="s${n}"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>Slide number ${n}</text:p></draw:text-box></draw:frame></draw:page>`;
const FODP = `${HEAD} office:mimetype="application/vnd.oasis.opendocument.presentation"><office:body><office:presentation>${[1, 2, 3].map(slide).join('')}</office:presentation></office:body></office:document>`;

const FODS = `${HEAD} office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet><table:table table:name="Prices"><table:table-row><table:table-cell><text:p>Price list cell</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document>`;

let dir: string;
const file = (name: string) => join(dir, name);

/** soffice's own OOXML, made once (each with its own profile, in parallel). */
const makeOoxml = async (source: string, to: string) => {
  const profile = await mkdtemp(join(tmpdir(), 'flipbook-office-fixture-'));
  try {
    await run('soffice', [
      `-env:UserInstallation=file://${profile}`,
      '--headless',
      '--norestore',
      '--convert-to',
      to,
      '--outdir',
      dir,
      file(source),
    ]);
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
};

const pdfinfoPages = (pdf: string) =>
  Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1]);
const pdftotext = (pdf: string) => execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
const leftOver = () => {
  try {
    return execFileSync('pgrep', ['-f', 'flipbook-office-[a-zA-Z0-9]{6}'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return ''; // pgrep exits 1 when nothing matches
  }
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'officePdf-int-'));
  await writeFile(file('report.fodt'), FODT);
  await writeFile(file('deck.fodp'), FODP);
  await writeFile(file('prices.fods'), FODS);
  await Promise.all([
    makeOoxml('report.fodt', 'docx'),
    makeOoxml('deck.fodp', 'pptx'),
    makeOoxml('prices.fods', 'xlsx'),
    makeOoxml('deck.fodp', 'ppt'),
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
