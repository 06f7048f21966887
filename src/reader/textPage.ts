// The text of every page of a flipbook, as a plain document at /f/:id/text: what search engines
// index and what a screen reader or a reader without JavaScript reads. The reader links to it
// (its skip link, and a <noscript> note) instead of carrying the text itself, which would make
// its HTML grow with the book. Each page's heading links back to that page in the reader.
import { html } from '../http/html.ts';
import { fill } from './client/words.ts';
import { scriptLanguage } from './documentSummary.ts';
import type { ReaderBook } from './readerData.ts';
import { pageImages, shell } from './readerPage.ts';
import type { Language } from './words/language.ts';

/**
 * `watermark`: a link's reader's address and day (issue 44), written in every page's article
 * (as the images carry it drawn in), so that a copy of the text names whom it was shown to.
 */
export const textPage = (
  book: ReaderBook,
  pages: { n: number; text: string }[],
  l: Language,
  watermark: string | null = null,
) => {
  const w = l.words;
  const title = book.title;
  const reader = book.url;
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
    pages.map(({ n }) => [n, book.pageBase ? pageImages(l, book, n, n)[0] : undefined]),
  );
  const paragraphs = (text: string) => {
    const found = text
      .split(/\n{2,}/)
      .map((para) => para.trim())
      .filter(Boolean);
    return found.length > 0 ? found.map((para) => html`<p>${para}</p>`) : html`<p>${w.noText}</p>`;
  };
  const articles = pages.map(
    ({ n, text }, i) =>
      html`${i > 0 && '\n'}<article id="page-${n}"><h2><a href="${reader}#page=${n}">${fill(w.script.page, { label: book.labelOf(n) })}</a></h2>${images.get(n)}${paragraphs(text)}${watermark && html`<p class="watermark-line">${watermark}</p>`}</article>`,
  );
  return shell(
    l,
    html`<title>${fill(w.textTitle, { title })}</title>${book.description && html`\n<meta name="description" content="${book.description}">`}`,
    html`<main class="page-texts" id="page-texts" dir="${book.direction}"${lang && html` lang="${lang}"`}>
<h1>${title}</h1>
<p><a href="${reader}">${w.openFlipbook}</a></p>
${book.status !== 'done' && html`<p>${w.textStillPreparing}</p>`}
${articles}
</main>`,
  );
};
