// The reader's HTML, server-rendered. Everything that came from a user (title, description, page
// text) is escaped; the data the script needs travels in a JSON block that cannot end the script
// element early. It stays small whatever the book's length (tested: under 30 KB compressed for
// 500 pages): page sizes as runs, one URL prefix for the images, the alternative text of the
// first pages only. The text of every page is a link away (/f/:id/text, see ./textPage.ts), for
// search engines, assistive technology and readers without JavaScript.
import { assetUrl, SCRIPT, STYLESHEET } from './assets.ts';
import type { ReaderBook } from './readerData.ts';

export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** JSON safe inside <script type="application/json">: no "</script>", no HTML comment openers. */
export const jsonForScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** Alternative text for a page image: its own words, shortened. */
export const altText = (position: number, text: string) => {
  const words = text.replace(/\s+/g, ' ').trim();
  const excerpt = words.length > 180 ? `${words.slice(0, 180).replace(/\s+\S*$/, '')}…` : words;
  return excerpt ? `Page ${position}: ${excerpt}` : `Page ${position}`;
};

/** Security headers for every reader response: a strict CSP, no third-party anything. */
export const READER_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    // Embeddable: an <iframe> on any site may show a flipbook (it is a public share link).
    'frame-ancestors *',
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
};

export const shell = (head: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${head}
<link rel="stylesheet" href="${assetUrl(STYLESHEET)}">
</head>
<body>
${body}
</body>
</html>
`;

export const notFoundPage = () =>
  shell(
    '<title>Flipbook not found</title>\n<meta name="robots" content="noindex">',
    `<main class="message">
<h1>Flipbook not found</h1>
<p>This link does not lead to a flipbook. It may have been mistyped, or the flipbook was removed.</p>
</main>`,
  );

/** An archived flipbook: withdrawn by its owner, perhaps for a while. Nothing of it is shown. */
export const unavailablePage = () =>
  shell(
    '<title>Flipbook not available</title>\n<meta name="robots" content="noindex">',
    `<main class="message" id="unavailable">
<h1>This flipbook is not available</h1>
<p>Its owner has withdrawn it. If it is published again, this link will work again.</p>
</main>`,
  );

export const readerPage = (book: ReaderBook) => {
  const title = escapeHtml(book.title);
  const first = book.runs[0]?.[0];
  const cover = book.pageBase && first ? `${book.pageBase}${first}/mid.jpg` : null;
  const head = [
    `<title>${title}</title>`,
    book.description ? `<meta name="description" content="${escapeHtml(book.description)}">` : '',
    `<meta property="og:title" content="${title}">`,
    '<meta property="og:type" content="book">',
    `<meta property="og:url" content="${escapeHtml(book.url)}">`,
    cover ? `<meta property="og:image" content="${escapeHtml(cover)}">` : '',
    cover ? '<meta name="twitter:card" content="summary_large_image">' : '',
    `<link rel="canonical" href="${escapeHtml(book.url)}">`,
  ]
    .filter(Boolean)
    .join('\n');

  if (!book.pageBase || !book.versionId) {
    // Nothing ready yet: say so, and look again shortly (a meta refresh needs no script, and this
    // page is a few hundred bytes).
    return shell(
      `${head}\n<meta http-equiv="refresh" content="5">`,
      `<main class="message" id="not-ready">
<h1>${title}</h1>
<p>${
        book.status === 'error'
          ? 'This flipbook could not be prepared from its PDF.'
          : 'This flipbook is being prepared. This page refreshes by itself when it is ready.'
      }</p>
</main>`,
    );
  }

  const textPage = `${book.url}/text`;
  const data = {
    pageCount: Math.max(book.pageCount, book.ready),
    processing: book.status !== 'done',
    versionId: book.versionId,
    pageBase: book.pageBase,
    runs: book.runs,
    alts: book.leadTexts.map((text, i) => altText(i + 1, text)),
    text: `${book.pageBase}text.json`,
    status: `${book.url}/status.json`,
  };

  return shell(
    `${head}\n<script type="module" src="${assetUrl(SCRIPT)}"></script>`,
    `<a class="skip" href="${escapeHtml(textPage)}">Skip to the text of the pages</a>
<header class="bar">
<h1 class="title">${title}</h1>
<div class="tools" role="toolbar" aria-label="Reader tools">
<button type="button" data-action="search" aria-label="Search the text" aria-expanded="false">Search</button>
<button type="button" data-action="zoom" aria-label="Zoom in" aria-pressed="false">Zoom</button>
<button type="button" data-action="fullscreen" aria-label="Full screen">Full screen</button>
${book.download ? `<a class="button" data-action="download" href="${escapeHtml(book.download)}" download>Download PDF</a>` : ''}
</div>
</header>
<form class="search" role="search" hidden>
<label for="search-input">Search the text</label>
<input id="search-input" type="search" autocomplete="off">
<button type="submit">Find</button>
<output id="search-result" aria-live="polite"></output>
</form>
<main id="book" class="book" aria-label="${title}" aria-roledescription="flipbook" tabindex="-1">
${book.status !== 'done' ? '<p class="notice" role="status">This version is still being prepared: more pages appear as they are ready.</p>' : ''}
<noscript><p class="noscript">Turning pages needs JavaScript. <a href="${escapeHtml(textPage)}">Read the text of every page</a>${cover ? ` or <a href="${escapeHtml(cover)}">see the cover</a>` : ''}.</p></noscript>
<div class="stage" id="stage"></div>
<button type="button" class="edge prev" data-action="prev" aria-label="Previous page"></button>
<button type="button" class="edge next" data-action="next" aria-label="Next page"></button>
</main>
<nav class="controls" aria-label="Pages">
<button type="button" class="far" data-action="first" aria-label="First page">«</button>
<button type="button" data-action="prev" aria-label="Previous page">◀</button>
<input type="range" id="slider" min="1" max="${data.pageCount}" value="1" aria-label="Page">
<span id="counter" class="counter">1 / ${data.pageCount}</span>
<button type="button" data-action="next" aria-label="Next page">▶</button>
<button type="button" class="far" data-action="last" aria-label="Last page">»</button>
</nav>
<div id="live" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
<script type="application/json" id="flipbook-data">${jsonForScript(data)}</script>`,
  );
};
