// Each page's links: where they are on the page, as fractions of the page the reader shows
// (the crop box, turned upright by /Rotate, top-left origin), and where they go. Pure: it reads
// the objects of `qpdf --json` (and, for the text under a link, the words of `pdftotext -bbox`).
import { targetOf } from './outline.ts';
import type { PdfIndex } from './pdfIndex.ts';
import {
  arrayAt,
  cleanText,
  type Dict,
  dictAt,
  type Json,
  nameOf,
  numberAt,
  type Objects,
  textAt,
} from './qpdfJson.ts';

export const MAX_LINKS_PER_PAGE = 500;
/** annotations looked at per page, links or not */
const MAX_ANNOTATIONS_PER_PAGE = 5_000;
export const MAX_LINK_TEXT_LENGTH = 200;
const MAX_PARENT_HOPS = 32;

/** [x, y, width, height], fractions of the page, from its top-left corner */
export type Rect = [number, number, number, number];

export type PageLink =
  | { rect: Rect; kind: 'page'; page: number; text?: string }
  | { rect: Rect; kind: 'uri'; uri: string; text?: string };

/** What maps PDF user space onto the upright visible page. */
export type PageGeometry = {
  /** the visible box (crop box within the media box): [x0, y0, x1, y1] */
  box: [number, number, number, number];
  /** clockwise quarter turns: 0, 90, 180 or 270 */
  rotate: number;
};

/** The page's visible box and rotation, inherited attributes included. */
export const pageGeometry = (objects: Objects, page: Dict): PageGeometry => {
  const inherited = (key: string): Json | undefined => {
    let node: Dict | undefined = page;
    for (let hop = 0; node && hop < MAX_PARENT_HOPS; hop++) {
      if (node[key] !== undefined) return node[key];
      node = dictAt(objects, node['/Parent']);
    }
    return undefined;
  };
  const media = boxOf(objects, inherited('/MediaBox')) ?? [0, 0, 612, 792];
  const crop = boxOf(objects, inherited('/CropBox'));
  let box = media;
  if (crop) {
    // The crop box clipped to the media box, as poppler does; a crop box outside it is ignored.
    const clipped: PageGeometry['box'] = [
      Math.max(crop[0], media[0]),
      Math.max(crop[1], media[1]),
      Math.min(crop[2], media[2]),
      Math.min(crop[3], media[3]),
    ];
    if (clipped[2] > clipped[0] && clipped[3] > clipped[1]) box = clipped;
  }
  const turns = Math.round((numberAt(objects, inherited('/Rotate')) ?? 0) / 90);
  return { box, rotate: (((turns % 4) + 4) % 4) * 90 };
};

const boxOf = (objects: Objects, value: Json | undefined): PageGeometry['box'] | undefined => {
  const numbers = (arrayAt(objects, value) ?? []).map((n) => numberAt(objects, n));
  if (numbers.length !== 4 || numbers.some((n) => n === undefined)) return undefined;
  const [a, b, c, d] = numbers as number[];
  const box: PageGeometry['box'] = [
    Math.min(a as number, c as number),
    Math.min(b as number, d as number),
    Math.max(a as number, c as number),
    Math.max(b as number, d as number),
  ];
  return box[2] > box[0] && box[3] > box[1] ? box : undefined;
};

/** The upright page's size in points (width and height swap on a quarter turn). */
export const uprightSize = ({ box, rotate }: PageGeometry) => {
  const w = box[2] - box[0];
  const h = box[3] - box[1];
  return rotate % 180 === 0 ? { width: w, height: h } : { width: h, height: w };
};

/** A point of user space as fractions of the upright page, from its top-left corner. */
const toFraction = ({ box, rotate }: PageGeometry, x: number, y: number): [number, number] => {
  const u = (x - box[0]) / (box[2] - box[0]);
  const v = (box[3] - y) / (box[3] - box[1]);
  switch (rotate) {
    case 90:
      return [1 - v, u];
    case 180:
      return [1 - u, 1 - v];
    case 270:
      return [v, 1 - u];
    default:
      return [u, v];
  }
};

const clamp = (n: number) => Math.min(1, Math.max(0, n));
const round = (n: number) => Math.round(n * 100_000) / 100_000;

/** A user-space rectangle as [x, y, w, h] fractions of the upright page; null if empty. */
export const fractionRect = (
  geometry: PageGeometry,
  rect: [number, number, number, number],
): Rect | null => {
  const [ax, ay] = toFraction(geometry, rect[0], rect[1]);
  const [bx, by] = toFraction(geometry, rect[2], rect[3]);
  const x0 = clamp(Math.min(ax, bx));
  const x1 = clamp(Math.max(ax, bx));
  const y0 = clamp(Math.min(ay, by));
  const y1 = clamp(Math.max(ay, by));
  if (!(x1 - x0 > 0 && y1 - y0 > 0)) return null;
  return [round(x0), round(y0), round(x1 - x0), round(y1 - y0)];
};

/** The links of one page (at most MAX_LINKS_PER_PAGE), without their text yet. */
export const readPageLinks = (
  index: PdfIndex,
  page: Dict,
  position: number,
): { links: (PageLink & { contents?: string })[]; geometry: PageGeometry } => {
  const { objects } = index;
  const geometry = pageGeometry(objects, page);
  const links: (PageLink & { contents?: string })[] = [];
  const annotations = (arrayAt(objects, page['/Annots']) ?? []).slice(0, MAX_ANNOTATIONS_PER_PAGE);
  for (const reference of annotations) {
    if (links.length >= MAX_LINKS_PER_PAGE) break;
    const annotation = dictAt(objects, reference);
    if (!annotation || nameOf(objects, annotation['/Subtype']) !== 'Link') continue;
    const numbers = (arrayAt(objects, annotation['/Rect']) ?? []).map((n) => numberAt(objects, n));
    if (numbers.length !== 4 || numbers.some((n) => n === undefined)) continue;
    const rect = fractionRect(geometry, numbers as [number, number, number, number]);
    if (!rect) continue;
    const target = targetOf(index, annotation, position);
    if (!target) continue;
    const contents = cleanText(
      textAt(objects, annotation['/Contents']) ?? '',
      MAX_LINK_TEXT_LENGTH,
    );
    const extra = contents ? { contents } : {};
    links.push(
      'page' in target
        ? { rect, kind: 'page', page: target.page, ...extra }
        : { rect, kind: 'uri', uri: target.uri, ...extra },
    );
  }
  return { links, geometry };
};

/** A word of `pdftotext -bbox`, as fractions of the upright page. */
export type Word = { x: number; y: number; text: string };

/**
 * Names each link by the words under it (a word counts when its centre is inside the link), or
 * by the annotation's own /Contents when no text is under it.
 */
export const nameLinks = (links: (PageLink & { contents?: string })[], words: Word[]): PageLink[] =>
  links.map(({ contents, ...link }) => {
    const [x, y, w, h] = link.rect;
    const under = words
      .filter((word) => word.x >= x && word.x <= x + w && word.y >= y && word.y <= y + h)
      .map((word) => word.text);
    const text = cleanText(under.join(' '), MAX_LINK_TEXT_LENGTH) || contents;
    return text ? { ...link, text } : link;
  });

/**
 * The words of each page from `pdftotext -bbox -cropbox` output (XHTML): their centres as
 * fractions of the upright page. poppler gives word boxes in the upright page's points, from
 * its top-left corner.
 */
export const parseWordBoxes = (
  xhtml: string,
  sizes: (page: number) => { width: number; height: number } | undefined,
  firstPage: number,
): Map<number, Word[]> => {
  const pages = new Map<number, Word[]>();
  const pageParts = xhtml.split(/<page\b/).slice(1);
  pageParts.forEach((part, i) => {
    const position = firstPage + i;
    const size = sizes(position);
    if (!size) return;
    const words: Word[] = [];
    for (const m of part.matchAll(
      /<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g,
    )) {
      const [xMin, yMin, xMax, yMax] = [m[1], m[2], m[3], m[4]].map(Number) as number[];
      words.push({
        x: ((xMin as number) + (xMax as number)) / 2 / size.width,
        y: ((yMin as number) + (yMax as number)) / 2 / size.height,
        text: unescapeXml(m[5] ?? ''),
      });
    }
    pages.set(position, words);
  });
  return pages;
};

/** The text of an XHTML element as pdftotext escapes it. */
export const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (entity, name: string) => {
    const lower = name.toLowerCase();
    if (lower === 'amp') return '&';
    if (lower === 'lt') return '<';
    if (lower === 'gt') return '>';
    if (lower === 'quot') return '"';
    if (lower === 'apos') return "'";
    const code = lower.startsWith('#x')
      ? Number.parseInt(lower.slice(2), 16)
      : Number(lower.slice(1));
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff
      ? String.fromCodePoint(code)
      : entity;
  });
