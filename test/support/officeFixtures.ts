// Office documents made here for the tests (issue 45): flat OpenDocument text written by hand,
// turned into .docx/.pptx/.xlsx/.ppt by LibreOffice itself (so the OOXML is real LibreOffice
// output), and a multi-page TIFF written byte by byte. No third-party content.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const NS = (name: string, uri: string) =>
  `xmlns:${name}="urn:oasis:names:tc:opendocument:xmlns:${uri}"`;
const HEAD = `<?xml version="1.0" encoding="UTF-8"?><office:document ${NS('office', 'office:1.0')} ${NS('text', 'text:1.0')} ${NS('table', 'table:1.0')} ${NS('draw', 'drawing:1.0')} ${NS('svg', 'svg-compatible:1.0')} ${NS('style', 'style:1.0')} xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2"`;

/** A report: a heading and a paragraph with a hyperlink. */
export const FODT = `${HEAD} office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text>
<text:h text:outline-level="1">Quarterly Heading</text:h>
<text:p>See <text:a xlink:type="simple" xlink:href="https://example.org/flipbook/page">the flipbook site</text:a> for more.</text:p>
</office:text></office:body></office:document>`;

const slide = (n: number) =>
  `<draw:page draw:name="s${n}"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>Slide number ${n}</text:p></draw:text-box></draw:frame></draw:page>`;
/** A deck of `slides` slides, each saying its number. */
export const fodp = (slides = 3) =>
  `${HEAD} office:mimetype="application/vnd.oasis.opendocument.presentation"><office:body><office:presentation>${Array.from({ length: slides }, (_, i) => slide(i + 1)).join('')}</office:presentation></office:body></office:document>`;

/** A one-cell price list. */
export const FODS = `${HEAD} office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet><table:table table:name="Prices"><table:table-row><table:table-cell><text:p>Price list cell</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document>`;

/**
 * Writes `source` (flat ODF text) as `<dir>/<name>` and has LibreOffice convert it to each of
 * `to` (docx, pptx, xlsx, ppt...) beside it, each with its own profile.
 */
export const makeOffice = async (dir: string, name: string, source: string, to: string[]) => {
  await writeFile(join(dir, name), source);
  await Promise.all(
    to.map(async (ext) => {
      const profile = await mkdtemp(join(tmpdir(), 'flipbook-office-fixture-'));
      try {
        await run('soffice', [
          `-env:UserInstallation=file://${profile}`,
          ...['--headless', '--norestore', '--convert-to', ext, '--outdir', dir],
          join(dir, name),
        ]);
      } finally {
        await rm(profile, { recursive: true, force: true });
      }
    }),
  );
};

/**
 * A baseline TIFF of `pages` pages, each an uncompressed 8-bit grey image of its own size and
 * shade: little-endian, one IFD a page, chained.
 */
export const multiPageTiff = (pages: { width: number; height: number; shade: number }[]) => {
  const parts: Buffer[] = [];
  let offset = 8;
  const header = Buffer.alloc(8);
  header.write('II', 0, 'latin1');
  header.writeUInt16LE(42, 2);
  header.writeUInt32LE(8, 4);
  parts.push(header);
  pages.forEach((page, i) => {
    const entries: [number, number, number][] = [
      [256, 4, page.width], // ImageWidth, LONG
      [257, 4, page.height], // ImageLength
      [258, 3, 8], // BitsPerSample, SHORT
      [259, 3, 1], // Compression: none
      [262, 3, 1], // Photometric: black is zero
      [273, 4, 0], // StripOffsets, set below
      [277, 3, 1], // SamplesPerPixel
      [278, 4, page.height], // RowsPerStrip
      [279, 4, page.width * page.height], // StripByteCounts
    ];
    const ifdSize = 2 + entries.length * 12 + 4;
    const dataOffset = offset + ifdSize;
    const pixels = Buffer.alloc(page.width * page.height, page.shade);
    const next = i < pages.length - 1 ? dataOffset + pixels.length : 0;
    const ifd = Buffer.alloc(ifdSize);
    ifd.writeUInt16LE(entries.length, 0);
    entries.forEach(([tag, type, value], n) => {
      const at = 2 + n * 12;
      ifd.writeUInt16LE(tag, at);
      ifd.writeUInt16LE(type, at + 2);
      ifd.writeUInt32LE(1, at + 4);
      const v = tag === 273 ? dataOffset : value;
      if (type === 3) ifd.writeUInt16LE(v, at + 8);
      else ifd.writeUInt32LE(v, at + 8);
    });
    ifd.writeUInt32LE(next, ifdSize - 4);
    parts.push(ifd, pixels);
    offset = dataOffset + pixels.length;
  });
  return Buffer.concat(parts);
};
