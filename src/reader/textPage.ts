// The text of every page of a flipbook, as a plain document at /f/:id/text: what search engines
// index and what a screen reader or a reader without JavaScript reads. The reader links to it
// (its skip link, and a <noscript> note) instead of carrying the text itself, which would make
// its HTML grow with the book. Each page's heading links back to that page in the reader.
import { scriptLanguage } from './documentSummary.ts';
import type { ReaderBook } from './readerData.ts';
import { escapeHtml, pageImages, shell } from './readerPage.ts';

export const textPage = (book: ReaderBook, pages: { n: number; text: string }[]) => {
  const title = escapeHtml(book.title);
  const reader = escapeHtml(book.url);
  // The language its script tells (Arabic, Hebrew...), from the text itself here.
  const lang =
    book.lang ??
    (book.direction === 'rtl'
      ? scriptLanguage(
          pages
            .map((p) => p.text)
            .join(' ')
            .slice(0, 50_000),
        )
      : null);
  // Each page's image too (lazily loaded): without JavaScript this is the book, page by page.
  const images = new Map(
    pages.map(({ n }) => [n, book.pageBase ? (pageImages(book, n, n)[0] ?? '') : '']),
  );
  const articles = pages
    .map(
      ({ n, text }) =>
        `<article id="page-${n}"><h2><a href="${reader}#page=${n}">Page ${escapeHtml(book.labelOf(n))}</a></h2>${images.get(n)}${
          text
            .split(/\n{2,}/)
            .map((para) => para.trim())
            .filter(Boolean)
            .map((para) => `<p>${escapeHtml(para)}</p>`)
            .join('') || '<p>(no text on this page)</p>'
        }</article>`,
    )
    .join('\n');
  return shell(
    [
      `<title>${title}: text</title>`,
      book.description ? `<meta name="description" content="${escapeHtml(book.description)}">` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    `<main class="page-texts" id="page-texts" dir="${book.direction}"${lang ? ` lang="${escapeHtml(lang)}"` : ''}>
<h1>${title}</h1>
<p><a href="${reader}">Open the flipbook</a></p>
${book.status === 'done' ? '' : '<p>This version is still being prepared: the text of the pages not ready yet is missing.</p>'}
${articles}
</main>`,
  );
};
