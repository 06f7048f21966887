// A tiny PDF writer for tests: numbered objects written as PDF syntax, with a correct
// cross-reference table, so a test can make exactly the structure it checks (outlines, links,
// page labels, viewer preferences) without any PDF library.
import { writeFile } from 'node:fs/promises';

/** Objects by number ("<< /Type /Catalog ... >>"); `root` and `info` name objects by number. */
export type PdfObjects = { objects: Map<number, string>; root: number; info?: number };

export const pdfBytes = ({ objects, root, info }: PdfObjects): Buffer => {
  const numbers = [...objects.keys()].sort((a, b) => a - b);
  const size = (numbers.at(-1) ?? 0) + 1;
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets = new Map<number, number>();
  for (const n of numbers) {
    offsets.set(n, Buffer.byteLength(out, 'latin1'));
    out += `${n} 0 obj\n${objects.get(n)}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) {
    const offset = offsets.get(n);
    out +=
      offset === undefined
        ? '0000000000 65535 f \n'
        : `${String(offset).padStart(10, '0')} 00000 n \n`;
  }
  out += `trailer\n<< /Size ${size} /Root ${root} 0 R${info ? ` /Info ${info} 0 R` : ''} >>\n`;
  out += `startxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
};

export const writePdf = (path: string, pdf: PdfObjects) => writeFile(path, pdfBytes(pdf));

/** A content stream object. */
export const stream = (content: string) =>
  `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`;

/** Helvetica text drawn at (x, y), for a page's content stream. */
export const text = (x: number, y: number, words: string, size = 12) =>
  `BT /F1 ${size} Tf ${x} ${y} Td (${words.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj ET`;

/** A UTF-16BE text string (<FEFF...>) for titles and labels outside Latin-1. */
export const utf16 = (value: string) => {
  const bytes = Buffer.from(value, 'utf16le').swap16();
  return `<FEFF${bytes.toString('hex').toUpperCase()}>`;
};
