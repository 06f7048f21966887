// oEmbed (https://oembed.com) for public flipbooks: GET /oembed?url=<reader URL>&format=json
// answers a `rich` embed (the reader in an iframe, sized to the book's first page, within
// maxwidth/maxheight) with its title and cover, so pasting a link unfurls it in a chat or a CMS.
// Announced by a discovery <link> in the public reader's <head>. A non-public book, or any URL
// that is not one of our readers, is a 404: nothing of a private book is described.
import { html } from '../http/html.ts';
import type { ReaderBook } from './readerData.ts';

const DEFAULT_WIDTH = 800;
const MAX_SIDE = 4000;

/** The flipbook id a reader URL of ours names (`<public-url>/f/<id>`), else null. */
export const readerIdOf = (url: string, publicUrl: string) => {
  const base = publicUrl.replace(/\/+$/, '');
  if (!url.startsWith(`${base}/f/`)) return null;
  const rest = url.slice(base.length + 3).replace(/[?#].*$/, '');
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(rest)
    ? rest.toLowerCase()
    : null;
};

/** A positive whole number of pixels from a query parameter, or null. */
export const pixels = (raw: string | null) => {
  if (raw === null || !/^\d{1,5}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= 1 ? Math.min(n, MAX_SIDE) : null;
};

export const oembedOf = (
  book: ReaderBook,
  providerUrl: string,
  limits: { maxWidth: number | null; maxHeight: number | null },
) => {
  const [, , pageWidth = 612, pageHeight = 792] = book.runs[0] ?? [];
  // Room for the reader's bars: the page's shape, a little taller.
  const ratio = (pageHeight / pageWidth) * 1.1;
  let width = Math.min(DEFAULT_WIDTH, limits.maxWidth ?? DEFAULT_WIDTH);
  let height = Math.round(width * ratio);
  if (limits.maxHeight !== null && height > limits.maxHeight) {
    height = limits.maxHeight;
    width = Math.round(height / ratio);
  }
  const first = book.runs[0]?.[0];
  const cover = book.imageBase && first ? `${book.imageBase}${first}/mid.jpg` : null;
  // mid.jpg: 1000 px on its long side (src/pdf/renderPdf.ts)
  const portrait = pageHeight >= pageWidth;
  const coverWidth = portrait ? Math.round((1000 * pageWidth) / pageHeight) : 1000;
  const coverHeight = portrait ? 1000 : Math.round((1000 * pageHeight) / pageWidth);
  const iframe = html`<iframe src="${book.url}" width="${width}" height="${height}" title="${book.title}" style="border:0" allowfullscreen loading="lazy"></iframe>`;
  return {
    version: '1.0',
    type: 'rich',
    provider_name: 'Flipbook',
    provider_url: providerUrl,
    title: book.title,
    html: String(iframe),
    width,
    height,
    ...(cover
      ? {
          thumbnail_url: cover,
          thumbnail_width: coverWidth,
          thumbnail_height: coverHeight,
        }
      : {}),
  };
};
