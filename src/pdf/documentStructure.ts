// A document's structure for the reader: its own title, reading direction, bookmarks, page
// labels and each page's links. Read once while processing (see docs/processing.md, "Document
// structure") with the tools of Debian's packages, under the same limits as rendering:
// - `qpdf --json` gives every object, resolved (page order, /PageLabels, /Outlines,
//   /ViewerPreferences, each page's link annotations, named destinations);
// - `pdfinfo` gives the title; the text pass's word boxes (or `pdftotext -bbox`) the words under
//   each link.
// Never fails for the document's sake: whatever a tool cannot read (a damaged, hostile or
// password-protected file, a missing qpdf, a timeout) leaves that part empty, and every list has a
// ceiling. A full TMPDIR (a tool's output lost) is thrown as the MachineFailure it is: an empty
// structure would be kept for good, and the render is tried again instead.
import { resolve as absolute } from 'node:path';
import { MachineFailure } from '../domain/errors.ts';
import { shapedForms, withoutMarks } from './bidiText.ts';
import { type OutlineEntry, readOutline } from './outline.ts';
import { labelRanges, pageLabels } from './pageLabels.ts';
import {
  nameLinks,
  type PageGeometry,
  type PageLink,
  parseWordBoxes,
  readPageLinks,
  uprightSize,
} from './pageLinks.ts';
import type { PageWord } from './pageWord.ts';
import { indexPdf } from './pdfIndex.ts';
import { type PopplerCall, type ProcessLimits, runPoppler, runQpdf } from './poppler.ts';
import { cleanText, dictAt, isDict, type Json, nameOf } from './qpdfJson.ts';

export type { OutlineEntry, PageLink };

export type DocumentStructure = {
  /** the PDF's own Title (its Info dictionary), or null */
  title: string | null;
  direction: 'ltr' | 'rtl';
  outline: OutlineEntry[];
  /** one label per page, or null when the PDF has no /PageLabels */
  labels: string[] | null;
  /**
   * links[i]: the links of page i + 1 (one list per page when the page count is given; [] for a
   * page whose links could not be read)
   */
  links: PageLink[][];
};

export const MAX_TITLE_LENGTH = 255;
/** More JSON than this from qpdf (a file of millions of objects) and the structure stays empty. */
const MAX_JSON_BYTES = 48 * 1024 * 1024;
const MAX_WORDS_BYTES = 32 * 1024 * 1024;
const MAX_INFO_BYTES = 1024 * 1024;
/** pages of text looked at for the script when the caller gives none */
const SAMPLE_PAGES = 30;
/** characters of text looked at for the script */
const SAMPLE_CHARS = 200_000;

export const emptyStructure = (): DocumentStructure => ({
  title: null,
  direction: 'ltr',
  outline: [],
  labels: null,
  links: [],
});

export type StructureOptions = {
  limits: ProcessLimits;
  signal?: AbortSignal;
  /** wall-clock limit for the whole extraction (default: 20 s + 20 ms a page, at most 2 min) */
  timeoutMs?: number;
  /** the page count rendering found: nothing points past it */
  pageCount?: number;
  /** the pages' text, when already extracted (for the script); else the first pages are read */
  pageTexts?: string[];
  /**
   * the pages' words with their boxes, when already read (./textPass.ts): the links' words come
   * from them; else pdftotext -bbox reads the pages with links
   */
  pageWords?: PageWord[][];
};

export const readDocumentStructure = async (
  pdfPath: string,
  options: StructureOptions,
): Promise<DocumentStructure> => {
  const structure = await extract(pdfPath, options);
  // One list of links per rendered page, whatever qpdf made of the page tree.
  const pages = options.pageCount;
  if (pages !== undefined && structure.links.length !== pages) {
    structure.links = Array.from({ length: pages }, (_, i) => structure.links[i] ?? []);
  }
  return structure;
};

const extract = async (pdfPath: string, options: StructureOptions): Promise<DocumentStructure> => {
  const timeoutMs = options.timeoutMs ?? Math.min(120_000, 20_000 + 20 * (options.pageCount ?? 0));
  const signal = AbortSignal.any(
    [options.signal, AbortSignal.timeout(timeoutMs)].filter(
      (s): s is AbortSignal => s !== undefined,
    ),
  );
  const path = absolute(pdfPath); // never taken for an option, whatever its name
  const run = (call: PopplerCall, maxBytes: number) =>
    runPoppler(options.limits, call, { signal, maxBytes });
  const structure = emptyStructure();
  try {
    const [title, json, texts] = await Promise.all([
      run(
        { tool: 'pdfinfo', file: path, options: { outputEncoding: 'UTF-8' } },
        MAX_INFO_BYTES,
      ).then(parseTitle, orElse(null)),
      runQpdf(
        options.limits,
        // Only the objects: qpdf's own `pages` key walks the outline for each page, and an
        // outline whose entries loop made it allocate until killed (1.5 GB in 4 s here).
        ['--json=2', '--json-key=qpdf', path],
        { signal, maxBytes: MAX_JSON_BYTES },
      ).then(
        // 3: qpdf repaired something and says so; its output is whole.
        (r) => (r.code === 0 || r.code === 3 ? (JSON.parse(r.stdout) as Json) : null),
        orElse(null),
      ),
      options.pageTexts ??
        run(
          {
            tool: 'pdftotext',
            file: path,
            options: { outputEncoding: 'UTF-8', lastPageToConvert: SAMPLE_PAGES },
          },
          4 * 1024 * 1024,
        ).then((text) => withoutMarks(text).split('\f'), orElse([])),
    ]);
    structure.title = title;
    structure.direction = scriptDirection(texts);
    const data = isDict(json) ? json : null;
    const index = data ? indexPdf(data, options.pageCount) : null;
    if (!data || !index || signal.aborted) return structure;

    const viewer = dictAt(index.objects, index.catalog['/ViewerPreferences']);
    const declared = viewer && nameOf(index.objects, viewer['/Direction']);
    if (declared === 'R2L') structure.direction = 'rtl';
    else if (declared === 'L2R') structure.direction = 'ltr';
    structure.labels = pageLabels(
      labelRanges(index.objects, index.catalog),
      options.pageCount ?? index.pageCount,
    );
    structure.outline = readOutline(index);

    const read = index.pages.map((page, i) => readPageLinks(index, page, i + 1));
    structure.links = read.map((p) => nameLinks(p.links, []));
    const withLinks = read.flatMap((p, i) => (p.links.length > 0 ? [i + 1] : []));
    if (withLinks.length === 0 || signal.aborted) return structure;
    if (options.pageWords) {
      const given = options.pageWords;
      structure.links = read.map((p, i) => nameLinks(p.links, centres(given[i] ?? [])));
      return structure;
    }
    const first = withLinks[0] as number;
    const last = withLinks.at(-1) as number;
    const words = await run(
      {
        tool: 'pdftotext',
        file: path,
        options: {
          boundingBoxXhtml: true,
          cropBox: true,
          outputEncoding: 'UTF-8',
          firstPageToConvert: first,
          lastPageToConvert: last,
        },
      },
      MAX_WORDS_BYTES,
    ).catch(orElse(''));
    const boxes = parseWordBoxes(
      words,
      (position) => {
        const geometry = read[position - 1]?.geometry;
        return geometry && uprightSize(geometry as PageGeometry);
      },
      first,
    );
    structure.links = read.map((p, i) => nameLinks(p.links, boxes.get(i + 1) ?? []));
    return structure;
  } catch (error) {
    if (error instanceof MachineFailure) throw error;
    // Nothing above should throw; if something does, the document is still served, without
    // its structure.
    return { ...emptyStructure(), title: structure.title, direction: structure.direction };
  }
};

/** Each word's centre, as the links are matched to the words under them. */
const centres = (words: PageWord[]) =>
  words.map((word) => ({ x: word.x + word.w / 2, y: word.y + word.h / 2, text: word.t }));

/** What a part becomes when its tool failed: empty, unless the machine failed (thrown). */
const orElse =
  <T>(empty: T) =>
  (error: unknown): T => {
    if (error instanceof MachineFailure) throw error;
    return empty;
  };

/** The Title line of pdfinfo (a title with line breaks runs on to the next known field). */
export const parseTitle = (info: string): string | null => {
  const match =
    /^Title:[ \t]*([\s\S]*?)\n(?=(?:Subject|Keywords|Author|Creator|Producer|CreationDate|ModDate|Custom Metadata|Metadata Stream|Tagged|UserProperties|Suspects|Form|JavaScript|Pages|Encrypted|Page size|Page rot|File size|Optimized|PDF version):)/m.exec(
      info,
    );
  const title = cleanText(shapedForms(match?.[1] ?? ''), MAX_TITLE_LENGTH);
  return title === '' || PLACEHOLDER_TITLE.test(title) ? null : title;
};

/** What some writers put in Title when the author gave none: no title at all for the reader. */
const PLACEHOLDER_TITLE = /^(?:untitled(?: document)?|no title|title|\(?anonymous\)?)$/i;

// Letters of the scripts written right to left.
const RTL_LETTER =
  /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}]/u;

/** 'rtl' when most letters of the text are of a right-to-left script. */
export const scriptDirection = (texts: string[]): 'ltr' | 'rtl' => {
  let rtl = 0;
  let letters = 0;
  let seen = 0;
  // Counted by the regular expressions themselves: a test per letter took 25-30 ms a document.
  for (const text of texts) {
    letters += text.match(LETTERS)?.length ?? 0;
    rtl += text.match(RTL_LETTERS)?.length ?? 0;
    seen += text.length;
    if (seen > SAMPLE_CHARS) break;
  }
  return rtl > 0 && rtl * 2 > letters ? 'rtl' : 'ltr';
};

const LETTERS = /\p{L}/gu;
const RTL_LETTERS = new RegExp(RTL_LETTER.source, 'gu');
