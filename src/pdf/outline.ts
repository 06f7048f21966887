// The PDF's bookmarks (/Outlines) as a nested list of { title, page, children }, and the
// resolution of destinations and actions shared with the links (pageLinks.ts). Pure: it reads
// the objects of `qpdf --json`. Every walk is bounded: visited references are never followed
// again (a hostile /Next loop ends), and entries, depth and name-tree size have ceilings.

import type { PdfIndex } from './pdfIndex.ts';
import { walkTree } from './pdfTree.ts';
import {
  cleanText,
  type Dict,
  dictAt,
  isDict,
  isReference,
  type Json,
  nameOf,
  resolve,
  textAt,
} from './qpdfJson.ts';

export const MAX_OUTLINE_ENTRIES = 10_000;
export const MAX_OUTLINE_DEPTH = 16;
export const MAX_TITLE_LENGTH = 300;
/** entries looked at, kept or not: a chain of a million empty bookmarks ends here */
const MAX_OUTLINE_VISITS = 4 * MAX_OUTLINE_ENTRIES;
const MAX_NAMED_DESTINATIONS = 200_000;
const MAX_URI_LENGTH = 2048;

export type OutlineEntry = { title: string; page: number | null; children: OutlineEntry[] };

export type Target = { page: number } | { uri: string };

/** The page a destination (explicit array, name, string or { /D }) points at, if any. */
export const destinationPage = (index: PdfIndex, destination: Json | undefined): number | null => {
  let dest = resolve(index.objects, destination);
  // A name or a string is looked up once: a named destination naming another is not followed.
  if (typeof dest === 'string' && !isReference(dest)) {
    dest = resolve(index.objects, namedDestinations(index).get(destinationKey(dest)));
  }
  if (isDict(dest)) dest = resolve(index.objects, dest['/D']);
  if (!Array.isArray(dest)) return null;
  const first = dest[0];
  if (isReference(first)) return index.positions.get(first) ?? null;
  // A page number instead of a page object (meant for remote documents; some writers use it
  // locally): 0-based.
  if (
    typeof first === 'number' &&
    Number.isInteger(first) &&
    first >= 0 &&
    first < index.pageCount
  ) {
    return first + 1;
  }
  return null;
};

/**
 * Where an outline entry or a link annotation goes: /Dest, or /A with a GoTo, a URI (http,
 * https and mailto only) or a Named action (NextPage and the like, given the link's page).
 * Anything else (JavaScript, Launch, GoToR, file: and other schemes) goes nowhere.
 */
export const targetOf = (index: PdfIndex, item: Dict, onPage?: number): Target | null => {
  if (item['/Dest'] !== undefined) {
    const page = destinationPage(index, item['/Dest']);
    return page ? { page } : null;
  }
  const action = dictAt(index.objects, item['/A']);
  if (!action) return null;
  switch (nameOf(index.objects, action['/S'])) {
    case 'GoTo': {
      const page = destinationPage(index, action['/D']);
      return page ? { page } : null;
    }
    case 'URI': {
      const uri = safeUri(textAt(index.objects, action['/URI']));
      return uri ? { uri } : null;
    }
    case 'Named': {
      const page = namedAction(nameOf(index.objects, action['/N']), onPage, index.pageCount);
      return page ? { page } : null;
    }
    default:
      return null;
  }
};

const namedAction = (name: string | undefined, onPage: number | undefined, pages: number) => {
  const page =
    name === 'FirstPage'
      ? 1
      : name === 'LastPage'
        ? pages
        : name === 'NextPage' && onPage
          ? onPage + 1
          : name === 'PrevPage' && onPage
            ? onPage - 1
            : 0;
  return page >= 1 && page <= pages ? page : null;
};

/** An http, https or mailto URL, normalised; anything else (javascript:, file:, ...) is null. */
export const safeUri = (text: string | undefined): string | null => {
  if (!text) return null;
  const trimmed = text.trim();
  if (trimmed.length > MAX_URI_LENGTH || /\p{Cc}/u.test(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'mailto:')
    return null;
  return url.href.length <= MAX_URI_LENGTH ? url.href : null;
};

/** The document's bookmarks, nested, within the ceilings. */
export const readOutline = (index: PdfIndex): OutlineEntry[] => {
  const root = dictAt(index.objects, index.catalog['/Outlines']);
  if (!root) return [];
  const seen = new Set<string>();
  let visits = 0;
  let kept = 0;
  const walk = (first: Json | undefined, depth: number): OutlineEntry[] => {
    const entries: OutlineEntry[] = [];
    let next = first;
    while (next !== undefined && visits < MAX_OUTLINE_VISITS && kept < MAX_OUTLINE_ENTRIES) {
      if (isReference(next)) {
        if (seen.has(next)) break; // a loop
        seen.add(next);
      }
      const item = dictAt(index.objects, next);
      if (!item) break;
      visits++;
      const title = cleanText(textAt(index.objects, item['/Title']) ?? '', MAX_TITLE_LENGTH);
      const target = targetOf(index, item);
      const page = target && 'page' in target ? target.page : null;
      // Counted before the children, so the ceiling holds for the whole tree.
      const keep = title !== '' && page !== null;
      if (keep) kept++;
      const children = depth + 1 < MAX_OUTLINE_DEPTH ? walk(item['/First'], depth + 1) : [];
      if (title === '') {
        entries.push(...children); // an untitled entry's children take its place
      } else if (keep) {
        entries.push({ title, page, children });
      } else if (children.length > 0 && kept < MAX_OUTLINE_ENTRIES) {
        kept++;
        entries.push({ title, page: null, children }); // a heading that only groups others
      }
      next = item['/Next'];
    }
    return entries;
  };
  return walk(root['/First'], 0);
};

/** Named destinations: the catalog's /Dests dictionary and the /Names /Dests name tree. */
const namedDestinations = (index: PdfIndex): Map<string, Json> => {
  if (index.named) return index.named;
  const named = new Map<string, Json>();
  index.named = named;
  const dests = dictAt(index.objects, index.catalog['/Dests']);
  if (dests) {
    for (const [key, value] of Object.entries(dests)) {
      if (named.size >= MAX_NAMED_DESTINATIONS) break;
      named.set(destinationKey(key), value);
    }
  }
  const names = dictAt(index.objects, index.catalog['/Names']);
  if (names) {
    walkTree(
      index.objects,
      names['/Dests'],
      '/Names',
      (name, value) => {
        const key = resolve(index.objects, name);
        if (typeof key === 'string') named.set(destinationKey(key), value as Json);
      },
      () => named.size >= MAX_NAMED_DESTINATIONS,
    );
  }
  return named;
};

/** One spelling for a destination's name, whether given as a name (/x) or a string (u:x). */
const destinationKey = (key: string) => {
  if (key.startsWith('/')) return key.slice(1);
  if (key.startsWith('u:')) return key.slice(2);
  if (key.startsWith('b:')) return Buffer.from(key.slice(2), 'hex').toString('latin1');
  return key;
};
