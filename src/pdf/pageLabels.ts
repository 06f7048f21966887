// The PDF's own page numbers (/PageLabels): "i, ii, iii, 1, 2, ..." or "A-1". Pure: it reads
// the number tree from the objects of `qpdf --json` and formats one label per page.

import { walkTree } from './pdfTree.ts';
import {
  cleanText,
  type Dict,
  dictAt,
  nameOf,
  numberAt,
  type Objects,
  textAt,
} from './qpdfJson.ts';

/** A label longer than this is cut (a hostile prefix could be megabytes). */
export const MAX_LABEL_LENGTH = 64;
const MAX_RANGES = 10_000;

export type LabelRange = {
  /** 0-based index of the range's first page */
  index: number;
  style: 'D' | 'r' | 'R' | 'a' | 'A' | null;
  prefix: string;
  start: number;
};

/** The ranges of the catalog's /PageLabels number tree (within a ceiling). */
export const labelRanges = (objects: Objects, catalog: Dict): LabelRange[] => {
  const ranges: LabelRange[] = [];
  walkTree(
    objects,
    catalog['/PageLabels'],
    '/Nums',
    (key, value) => {
      const index = numberAt(objects, key);
      const label = dictAt(objects, value);
      if (index === undefined || !Number.isInteger(index) || index < 0 || !label) return;
      const style = nameOf(objects, label['/S']);
      const start = numberAt(objects, label['/St']) ?? 1;
      ranges.push({
        index,
        style:
          style === 'D' || style === 'r' || style === 'R' || style === 'a' || style === 'A'
            ? style
            : null,
        prefix: cleanText(textAt(objects, label['/P']) ?? '', MAX_LABEL_LENGTH),
        start: Number.isInteger(start) && start >= 1 ? start : 1,
      });
    },
    () => ranges.length >= MAX_RANGES,
  );
  return ranges.sort((a, b) => a.index - b.index);
};

/** One label per page, or null when the PDF has no page labels. */
export const pageLabels = (ranges: LabelRange[], pageCount: number): string[] | null => {
  if (ranges.length === 0 || pageCount < 1) return null;
  const labels: string[] = [];
  let r = -1;
  for (let page = 0; page < pageCount; page++) {
    while (r + 1 < ranges.length && (ranges[r + 1] as LabelRange).index <= page) r++;
    const range = ranges[r];
    // Pages before the first range (the first should start at 0, not every PDF's does): their
    // position.
    if (!range) {
      labels.push(String(page + 1));
      continue;
    }
    const label = range.prefix + formatNumber(range.start + page - range.index, range.style);
    labels.push(label.slice(0, MAX_LABEL_LENGTH));
  }
  return labels;
};

const formatNumber = (n: number, style: LabelRange['style']) => {
  switch (style) {
    case 'D':
      return String(n);
    case 'r':
      return roman(n).toLowerCase();
    case 'R':
      return roman(n);
    case 'a':
      return letters(n).toLowerCase();
    case 'A':
      return letters(n);
    default:
      return ''; // a range without a style has only its prefix
  }
};

const ROMAN: [number, string][] = [
  [1000, 'M'],
  [900, 'CM'],
  [500, 'D'],
  [400, 'CD'],
  [100, 'C'],
  [90, 'XC'],
  [50, 'L'],
  [40, 'XL'],
  [10, 'X'],
  [9, 'IX'],
  [5, 'V'],
  [4, 'IV'],
  [1, 'I'],
];

/** Roman numerals; past 4999 (a start value no book has) decimal, never a string of Ms. */
export const roman = (n: number) => {
  if (n > 4999) return String(n);
  let out = '';
  let rest = n;
  for (const [value, symbol] of ROMAN) {
    while (rest >= value) {
      out += symbol;
      rest -= value;
    }
  }
  return out;
};

/** A..Z, then AA..ZZ, AAA.. (the PDF's letter style); decimal where that would be absurd. */
export const letters = (n: number) => {
  const repeat = Math.ceil(n / 26);
  if (repeat > 8) return String(n);
  return String.fromCharCode(65 + ((n - 1) % 26)).repeat(repeat);
};
