// The content sniffer on real bytes: ZIPs written here entry by entry (deflateRawSync and a
// hand-written central directory), LibreOffice's own .doc/.xls/.docx/.xlsx (test/fixtures/office),
// renamed and hostile files.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_UNPACKED_BYTES,
  needsWholeFile,
  refuseUnpacked,
  SNIFF_HEAD_BYTES,
  sniffDocument,
} from '../../src/pdf/documentKind.ts';
import { type ZipEntry, zip } from '../support/zipWriter.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/office');

const contentTypes = (part: string, type: string) =>
  `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  `<Default Extension="xml" ContentType="application/xml"/>` +
  `<Override PartName="/${part}" ContentType="${type}"/></Types>`;

const ooxml = (part: string, type: string, extra: ZipEntry[] = []) =>
  zip([
    { name: '_rels/.rels', data: '<Relationships/>' },
    { name: part, data: '<x/>' },
    ...extra,
    { name: '[Content_Types].xml', data: contentTypes(part, type) },
  ]);

const odf = (mimetype: string) =>
  zip([
    { name: 'mimetype', data: mimetype, store: true },
    { name: 'content.xml', data: '<office:document-content/>' },
  ]);

const ML = 'application/vnd.openxmlformats-officedocument';

describe('sniffDocument', () => {
  it('tells OOXML by the main part its [Content_Types].xml names, wherever it lies', () => {
    const docx = sniffDocument(
      ooxml('word/document.xml', `${ML}.wordprocessingml.document.main+xml`),
    );
    expect(docx).toMatchObject({ kind: 'docx', family: 'office', zip: { entries: 3 } });
    expect(docx).not.toHaveProperty('macros');
    expect(
      sniffDocument(ooxml('ppt/presentation.xml', `${ML}.presentationml.presentation.main+xml`)),
    ).toMatchObject({
      kind: 'pptx',
    });
    expect(
      sniffDocument(ooxml('xl/workbook.xml', `${ML}.spreadsheetml.sheet.main+xml`)),
    ).toMatchObject({
      kind: 'xlsx',
    });
  });

  it('marks the macro-enabled variants (docm, xlsm) and a vbaProject part', () => {
    const docm = ooxml(
      'word/document.xml',
      'application/vnd.ms-word.document.macroEnabled.main+xml',
    );
    expect(sniffDocument(docm)).toMatchObject({ kind: 'docx', macros: true });
    const xlsm = ooxml('xl/workbook.xml', 'application/vnd.ms-excel.sheet.macroEnabled.main+xml');
    expect(sniffDocument(xlsm)).toMatchObject({ kind: 'xlsx', macros: true });
    const vba = ooxml('ppt/presentation.xml', `${ML}.presentationml.presentation.main+xml`, [
      { name: 'ppt/vbaProject.bin', data: 'vba' },
    ]);
    expect(sniffDocument(vba)).toMatchObject({ kind: 'pptx', macros: true });
  });

  it('tells ODF by its stored mimetype entry', () => {
    expect(sniffDocument(odf('application/vnd.oasis.opendocument.text'))).toMatchObject({
      kind: 'odt',
    });
    expect(sniffDocument(odf('application/vnd.oasis.opendocument.presentation'))).toMatchObject({
      kind: 'odp',
    });
    expect(sniffDocument(odf('application/vnd.oasis.opendocument.spreadsheet'))).toMatchObject({
      kind: 'ods',
    });
    const locked = zip([
      { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', store: true },
      { name: 'content.xml', data: 'ciphertext' },
      {
        name: 'META-INF/manifest.xml',
        data: '<manifest:file-entry><manifest:encryption-data/></manifest:file-entry>',
      },
    ]);
    expect(sniffDocument(locked)).toMatchObject({ kind: 'odt', encrypted: true });
    expect(sniffDocument(odf('application/vnd.oasis.opendocument.text'))).not.toHaveProperty(
      'encrypted',
    );
    expect(sniffDocument(odf('application/vnd.oasis.opendocument.graphics'))).toMatchObject({
      kind: 'unknown',
      why: expect.stringContaining('opendocument.graphics'),
    });
  });

  it("reads LibreOffice's own files: .docx/.xlsx (rels first) and OLE2 .doc/.xls", async () => {
    const kind = async (file: string) => sniffDocument(await readFile(join(FIXTURES, file)));
    expect(await kind('hello.docx')).toMatchObject({ kind: 'docx', family: 'office' });
    expect(await kind('hello.xlsx')).toMatchObject({ kind: 'xlsx', family: 'office' });
    expect(await kind('hello.doc')).toEqual({ kind: 'doc', family: 'office' });
    expect(await kind('hello.xls')).toEqual({ kind: 'xls', family: 'office' });
  });

  it('goes by content, not the name: a ".docx" that is a PDF, one that is text, a bare ZIP', () => {
    const pdf = Buffer.concat([
      Buffer.alloc(600, 0x20),
      Buffer.from('%PDF-1.7\n%\xe2\xe3\n1 0 obj'),
    ]);
    expect(sniffDocument(pdf)).toEqual({ kind: 'pdf', family: 'pdf' });
    const text = sniffDocument(Buffer.from('Quarterly report\nnot really a document\n'));
    expect(text).toMatchObject({ kind: 'unknown', why: expect.stringMatching(/not a PDF/) });
    const bare = sniffDocument(zip([{ name: 'notes.txt', data: 'hello' }]));
    expect(bare).toMatchObject({ kind: 'unknown', why: expect.stringMatching(/not an Office/) });
    expect(sniffDocument(Buffer.from('{\\rtf1\\ansi Hello}'))).toEqual({
      kind: 'rtf',
      family: 'office',
    });
  });

  it('tells images by their magic', () => {
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
    const cases: [Buffer, string][] = [
      [Buffer.from('ffd8ffe000104a464946', 'hex'), 'jpeg'],
      [Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'png'],
      [webp, 'webp'],
      [Buffer.from('49492a0008000000', 'hex'), 'tiff'],
      [Buffer.from('4d4d002a00000008', 'hex'), 'tiff'],
    ];
    for (const [bytes, kind] of cases)
      expect(sniffDocument(bytes)).toEqual({ kind, family: 'image' });
  });

  it('asks for the whole file when the head is a container, and says so when given less', async () => {
    const whole = await readFile(join(FIXTURES, 'hello.docx'));
    const head = whole.subarray(0, SNIFF_HEAD_BYTES / 2);
    expect(needsWholeFile(head)).toBe(true);
    expect(needsWholeFile(Buffer.from('%PDF-1.4'))).toBe(false);
    expect(sniffDocument(head, whole.length)).toMatchObject({
      kind: 'unknown',
      why: expect.stringMatching(/whole/),
    });
  });

  it('refuses damaged containers in words: a truncated ZIP, a truncated OLE2 file', async () => {
    const docx = await readFile(join(FIXTURES, 'hello.docx'));
    expect(sniffDocument(docx.subarray(0, docx.length - 100))).toMatchObject({
      kind: 'unknown',
      why: expect.stringMatching(/damaged/),
    });
    const doc = await readFile(join(FIXTURES, 'hello.doc'));
    expect(sniffDocument(doc.subarray(0, 1024))).toMatchObject({
      kind: 'unknown',
      why: expect.stringMatching(/damaged/),
    });
  });

  it('reports an encrypted OOXML (an OLE2 file with EncryptionInfo and EncryptedPackage) as such', async () => {
    // LibreOffice's .doc with its root entries renamed: the directory walk is what is tested.
    const doc = Buffer.from(await readFile(join(FIXTURES, 'hello.doc')));
    const rename = (from: string, to: string) => {
      const at = doc.indexOf(Buffer.from(`${from}\0`, 'utf16le'));
      expect(at % 128).toBe(0); // a directory entry's start
      doc.fill(0, at, at + 64);
      doc.write(`${to}\0`, at, 'utf16le');
      doc.writeUInt16LE((to.length + 1) * 2, at + 0x40);
    };
    rename('WordDocument', 'EncryptionInfo');
    rename('1Table', 'EncryptedPackage');
    expect(sniffDocument(doc)).toEqual({
      kind: 'ooxml-encrypted',
      family: 'office',
      encrypted: true,
    });
  });
});

describe('refuseUnpacked (the ZIP-bomb check)', () => {
  it('passes real documents and refuses one that declares more than the cap, in words', () => {
    const docx = sniffDocument(
      ooxml('word/document.xml', `${ML}.wordprocessingml.document.main+xml`),
    );
    if (docx.kind === 'unknown' || !docx.zip) throw new Error('no zip totals');
    expect(refuseUnpacked(docx.zip)).toBeUndefined();
    const bomb = sniffDocument(
      ooxml('word/document.xml', `${ML}.wordprocessingml.document.main+xml`, [
        { name: 'word/media/big.xml', data: 'x', declaredSize: 0xfffffff0 },
      ]),
    );
    if (bomb.kind === 'unknown' || !bomb.zip) throw new Error('no zip totals');
    expect(bomb.zip.unpackedBytes).toBeGreaterThan(MAX_UNPACKED_BYTES);
    expect(refuseUnpacked(bomb.zip)).toMatch(/unpacks to 4096 MB, more than the 1024 MB accepted/);
    expect(refuseUnpacked({ entries: 20_000, unpackedBytes: 10, largestEntryBytes: 1 })).toMatch(
      /20000 parts/,
    );
  });
});
