// The reader's HTML, server-rendered with the one HTML template (src/http/html.ts): everything
// put into it is escaped unless it is HTML made by the template; the data the script needs
// travels in a JSON block that cannot end the script element early. It stays small whatever the book's length (tested: under 30 KB compressed for
// 500 pages): page sizes as runs, one URL prefix for the images, the alternative text of the
// first pages only. The text of every page is a link away (/f/:id/text, see ./textPage.ts), for
// search engines, assistive technology and readers without JavaScript.
// One file (over 300 lines): the page is one template; its parts share the book's data and the
// language's words.
import { type Html, html, trusted } from '../http/html.ts';
import { assetUrl, SCRIPT, STYLESHEET } from './assets.ts';
import { altText } from './client/altText.ts';
import { fill } from './client/words.ts';
import type { ReaderBook } from './readerData.ts';
import type { Language } from './words/language.ts';

/** JSON safe inside <script type="application/json">: no "</script>", no HTML comment openers. */
export const jsonForScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** How a reader page is seen: by anyone (a public book at its URL), or let in (docs/access.md). */
export type ReaderView = { isPublic: boolean; frameAncestors: string };
export const PUBLIC_VIEW: ReaderView = { isPublic: true, frameAncestors: 'frame-ancestors *' };
/** A page of a non-public book, or of a share link: framed by its own site only by default. */
export const PRIVATE_VIEW: ReaderView = {
  isPublic: false,
  frameAncestors: "frame-ancestors 'self'",
};

/**
 * Security headers for every reader response: a strict CSP, no third-party anything (but the
 * page images' origin when --blob-public-url puts them elsewhere), framed by the sites the book
 * allows. A private one is never stored, never indexed, and its address (a share link's token)
 * never sent to another site as a Referer.
 */
export const readerHeaders = (imageOrigin: string | null, view: ReaderView = PUBLIC_VIEW) => ({
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    imageOrigin && view.isPublic ? `img-src 'self' ${imageOrigin}` : "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    // only a share link's password form posts, to its own address
    view.isPublic ? "form-action 'none'" : "form-action 'self'",
    view.frameAncestors,
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  ...(view.isPublic
    ? { 'Referrer-Policy': 'strict-origin-when-cross-origin' }
    : {
        'Referrer-Policy': 'no-referrer',
        'X-Robots-Tag': 'noindex, nofollow',
        'Cache-Control': 'no-store',
      }),
});

/** A whole page, as the text sent, in the reader's language (right to left for some). */
export const shell = (l: Language, head: Html, body: Html) =>
  html`<!doctype html>
<html lang="${l.lang}"${l.dir === 'rtl' ? html` dir="rtl"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${assetUrl(STYLESHEET)}">
${head}
</head>
<body>
${body}
</body>
</html>
`.text;

export const noindex = (title: string) => html`<title>${title}</title>
<meta name="robots" content="noindex, nofollow">`;

/** Why a form came back (post/redirect/get), said above its field as an alert. */
export const problemLine = (problem: string | null | undefined, id: string): Html | '' =>
  problem ? html`<p class="form-problem" id="${id}" role="alert">${problem}</p>\n` : '';

/** A page that only says something: a title, a heading and a line. */
const messagePage = (l: Language, title: string, heading: string, line: string, id = '') =>
  shell(
    l,
    noindex(title),
    html`<main class="message"${id && html` id="${id}"`}>
<h1>${heading}</h1>
<p>${line}</p>
</main>`,
  );

export const notFoundPage = (l: Language) =>
  messagePage(l, l.words.notFoundTitle, l.words.notFoundTitle, l.words.notFound);

/** The service cannot answer for a moment (its database is away): for a person, in words. */
export const stalledPage = (l: Language) =>
  messagePage(l, l.words.stalledTitle, l.words.stalledTitle, l.words.stalled);

/** An archived flipbook: withdrawn by its owner, perhaps for a while. Nothing of it is shown. */
export const unavailablePage = (l: Language) =>
  messagePage(l, l.words.goneTitle, l.words.goneHeading, l.words.gone, 'unavailable');

/**
 * A share link that asks for a password: a plain form (it works without JavaScript), posted to
 * the link's own address. `problem`: why the last try was refused, said once for every reason.
 */
/** The oEmbed address that describes a public reader (./oembed.ts). */
const oembedUrl = (readerUrl: string) =>
  `${readerUrl.replace(/\/f\/[^/]+$/, '')}/oembed?url=${encodeURIComponent(readerUrl)}&format=json`;

export const passwordPage = (l: Language, action: string, problem: string | null = null) =>
  shell(
    l,
    noindex(l.words.passwordTitle),
    html`<main class="message" id="password-required">
<h1>${l.words.passwordHeading}</h1>
<p>${l.words.passwordHint}</p>
<form class="password-form" method="post" action="${action}">
${problemLine(problem, 'password-problem')}<label for="password">${l.words.password}</label>
<div class="password-row">
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024" autofocus${problem ? html` aria-invalid="true" aria-describedby="password-problem"` : ''}>
<button type="submit">${l.words.open}</button>
</div>
</form>
</main>`,
  );

/** Small line icons (24×24, stroked with the text colour); every button also names itself. */
const ICONS = {
  contents:
    '<path d="M4 6h16M4 12h10M4 18h13"/><circle cx="20" cy="12" r="0.6"/><circle cx="20" cy="18" r="0.6"/>',
  thumbnails:
    '<rect x="4" y="4" width="6.5" height="6.5" rx="1"/><rect x="13.5" y="4" width="6.5" height="6.5" rx="1"/><rect x="4" y="13.5" width="6.5" height="6.5" rx="1"/><rect x="13.5" y="13.5" width="6.5" height="6.5" rx="1"/>',
  search: '<circle cx="10.5" cy="10.5" r="6"/><path d="M15 15l5 5"/>',
  share:
    '<circle cx="6" cy="12" r="2.5"/><circle cx="18" cy="6" r="2.5"/><circle cx="18" cy="18" r="2.5"/><path d="M8.2 10.8l7.6-3.6M8.2 13.2l7.6 3.6"/>',
  fullscreen: '<path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5"/>',
  download: '<path d="M12 4v11M7 10.5l5 5 5-5M5 20h14"/>',
  zoomIn: '<circle cx="10.5" cy="10.5" r="6"/><path d="M15 15l5 5M8 10.5h5M10.5 8v5"/>',
  zoomOut: '<circle cx="10.5" cy="10.5" r="6"/><path d="M15 15l5 5M8 10.5h5"/>',
  reset: '<path d="M5 12a7 7 0 1 0 2.1-5M5 4v4h4"/>',
  first: '<path d="M17 6l-6 6 6 6M7 6v12"/>',
  prev: '<path d="M15 6l-6 6 6 6"/>',
  next: '<path d="M9 6l6 6-6 6"/>',
  last: '<path d="M7 6l6 6-6 6M17 6v12"/>',
  close: '<path d="M6 6l12 12M18 6L6 18"/>',
  changes: '<path d="M7 3.5h7l4 4V20.5H7z"/><path d="M10 11h5M12.5 8.5v5M10 17h5"/>',
} as const;

const icon = (name: keyof typeof ICONS, mirrored = false) =>
  html`<svg class="icon${mirrored ? ' mirror' : ''}" viewBox="0 0 24 24" aria-hidden="true" focusable="false">${trusted(ICONS[name])}</svg>`;

/** A toolbar button: an icon and its name, both shown (the name is hidden on small screens). */
const toolButton = (panelName: string, iconName: keyof typeof ICONS, label: string) =>
  html`<button type="button" data-panel="${panelName}" aria-expanded="false" aria-controls="panel-${panelName}">${icon(iconName)}<span class="label">${label}</span></button>`;

const panel = (
  l: Language,
  name: string,
  title: string,
  body: Html | '' = '',
) => html`<section class="panel" id="panel-${name}" role="dialog" aria-labelledby="panel-${name}-title" hidden>
<div class="panel-head"><h2 id="panel-${name}-title">${title}</h2><button type="button" class="panel-close" aria-label="${fill(l.words.closePanel, { panel: title })}">${icon('close')}</button></div>
<div class="panel-body">${body}</div>
</section>`;

/** How many pages the reader's no-JavaScript list shows; the text page has every page. */
export const NOSCRIPT_PAGES = 40;

/** `<img>`s of pages [from, to] at img_mid, lazily loaded, at their real shape (no layout shift). */
export const pageImages = (l: Language, book: ReaderBook, from: number, to: number) => {
  const items: Html[] = [];
  for (const [first, count, w, h] of book.runs) {
    const width = Math.round(1000 * Math.min(1, w / h));
    const height = Math.round(1000 * Math.min(1, h / w));
    for (let n = Math.max(first, from); n < first + count && n <= to; n++) {
      items.push(
        html`<img src="${book.imageBase}${n}/mid.jpg" width="${width}" height="${height}" loading="lazy" alt="${fill(l.words.script.page, { label: book.labelOf(n) })}">`,
      );
    }
  }
  return items;
};

/**
 * The first pages as plain images, for a browser without JavaScript: the book still reads, top
 * to bottom, and the text page (every page's image and text) goes on from there. Inside
 * <noscript>, so a browser running the script never fetches these; capped, so the HTML stays
 * small whatever the book's length.
 */
const noscriptPages = (l: Language, book: ReaderBook, textPage: string, pageCount: number) => {
  const items = pageImages(l, book, 1, NOSCRIPT_PAGES).map((img) => html`<li>${img}</li>`);
  const more =
    pageCount > NOSCRIPT_PAGES &&
    html`<p class="noscript"><a href="${textPage}#page-${NOSCRIPT_PAGES + 1}">${fill(l.words.pagesFromTo, { from: NOSCRIPT_PAGES + 1, to: pageCount })}</a></p>`;
  return html`<ol class="noscript-pages">${items}</ol>${more}`;
};

export const readerPage = (book: ReaderBook, l: Language) => {
  const w = l.words;
  const title = book.title;
  const first = book.runs[0]?.[0];
  const cover = book.imageBase && first ? `${book.imageBase}${first}/mid.jpg` : null;
  // Previews (Open Graph, a card) and a canonical address for public books only: a private one
  // shows nothing of itself to whatever fetches its link, and asks not to be indexed.
  const head = book.isPublic
    ? html`<title>${title}</title>
${book.description && html`<meta name="description" content="${book.description}">\n<meta property="og:description" content="${book.description}">\n`}<meta property="og:title" content="${title}">
<meta property="og:type" content="book">
<meta property="og:url" content="${book.url}">
${cover && html`<meta property="og:image" content="${cover}">\n<meta name="twitter:card" content="summary_large_image">\n`}<link rel="canonical" href="${book.url}">
<link rel="alternate" type="application/json+oembed" href="${oembedUrl(book.url)}" title="${title}">`
    : noindex(title);

  if (!book.pageBase || !book.versionId) {
    // Nothing ready yet: say so, and look again shortly (a meta refresh needs no script, and this
    // page is a few hundred bytes).
    // A failed version will not be ready by itself: no refresh then, only the message.
    return shell(
      l,
      book.status === 'error' ? head : html`${head}\n<meta http-equiv="refresh" content="5">`,
      html`<main class="message" id="not-ready">
<h1>${title}</h1>
<p>${book.status === 'error' ? w.notReadyFailed : w.notReady}</p>
</main>`,
    );
  }

  const textPage = `${book.url}/text`;
  // The workspace's branding: its stylesheet after ours, its logo before the title (./brandStyle.ts).
  const { brand } = book;
  const rtl = book.direction === 'rtl';
  const pageCount = Math.max(book.pageCount, book.ready);
  const data = {
    pageCount,
    processing: book.status !== 'done',
    versionId: book.versionId,
    url: book.url,
    dir: book.direction,
    pageBase: book.pageBase,
    imageBase: book.imageBase,
    runs: book.runs,
    labels: book.labelRuns,
    alts: book.leadTexts.map((text, i) =>
      altText(fill(w.script.page, { label: book.labelOf(i + 1) }), text),
    ),
    words: w.script,
    text: `${book.pageBase}text.json`,
    document: book.status === 'done' ? `${book.pageBase}document.json` : null,
    lines: book.hasLines ? `${book.pageBase}lines.json` : null,
    status: `${book.url}/status.json`,
    ...(book.beacon ? { beacon: book.beacon } : {}),
    ...(book.preview ? { preview: { compare: book.preview.compare } } : {}),
  };
  const bookLang = book.lang && html` lang="${book.lang}"`;
  // Previous is on the right in a right-to-left book: the edges and arrows swap sides.
  const [leftEdge, rightEdge]: ['prev' | 'next', 'prev' | 'next'] = rtl
    ? ['next', 'prev']
    : ['prev', 'next'];
  const edgeLabel = { prev: w.previous, next: w.next };
  // In the keyboard's order the page controls come right after the tools (the CSS draws them at
  // the bottom), and the book's edges before its pages' links: "Next page" is a few Tabs away
  // however many links a page has.
  return shell(
    l,
    html`${head}${brand && html`\n<link rel="stylesheet" href="/reader/brand/${brand.key}.css">`}\n<script type="module" src="${assetUrl(SCRIPT)}"></script>`,
    html`${
      book.preview &&
      html`<section class="preview-banner" aria-labelledby="preview-note"><p id="preview-note">${fill(w.preview, { name: book.preview.name })}</p></section>
`
    }<header class="bar">
<a class="skip" href="${textPage}">${w.skip}</a>
<div class="name">${brand?.logo && html`<img class="logo" src="/reader/brand/${brand.key}.webp" width="${brand.logo.width}" height="${brand.logo.height}" alt="">`}<h1 class="title">${title}</h1></div>
<div class="tools" role="toolbar" aria-label="${w.tools}">
${
  book.preview &&
  html`${toolButton('changes', 'changes', w.changes)}
`
}${toolButton('contents', 'contents', w.contents)}
${toolButton('thumbnails', 'thumbnails', w.pages)}
${toolButton('search', 'search', w.search)}
${toolButton('share', 'share', w.share)}
<button type="button" data-action="fullscreen" class="wide-only">${icon('fullscreen')}<span class="label">${w.fullScreen}</span></button>
${book.download && html`<a class="button" data-action="download" href="${book.download}" download>${icon('download')}<span class="label">${w.download}</span></a>`}
</div>
</header>
<section class="controls" aria-label="${w.controls}">
<nav class="pager" aria-label="${w.pages}" dir="${book.direction}">
<button type="button" class="far" data-action="first" aria-label="${w.first}">${icon('first', rtl)}</button>
<button type="button" data-action="prev" aria-label="${w.previous}">${icon('prev', rtl)}</button>
<input type="range" id="slider" min="1" max="${pageCount}" value="1" aria-label="${w.slider}">
<button type="button" id="counter" class="counter" data-panel="goto" aria-expanded="false" aria-controls="panel-goto" aria-describedby="counter-hint">1 / ${pageCount}</button>
<span id="counter-hint" class="visually-hidden">${w.counterHint}</span>
<button type="button" data-action="next" aria-label="${w.next}">${icon('next', rtl)}</button>
<button type="button" class="far" data-action="last" aria-label="${w.last}">${icon('last', rtl)}</button>
</nav>
<div class="zoom-tools" role="group" aria-label="${w.zoom}">
<button type="button" data-action="zoom-reset" aria-label="${w.zoomReset}" hidden>${icon('reset')}</button>
<button type="button" data-action="zoom-out" aria-label="${w.zoomOut}" disabled>${icon('zoomOut')}</button>
<button type="button" data-action="zoom-in" aria-label="${w.zoomIn}">${icon('zoomIn')}</button>
</div>
</section>
<div class="middle">
${
  book.preview &&
  html`${panel(l, 'changes', w.changes)}
`
}${panel(l, 'contents', w.contents)}
${panel(l, 'thumbnails', w.pages)}
${panel(
  l,
  'search',
  w.search,
  html`<form id="search-form" class="search" role="search">
<label for="search-input">${w.searchLabel}</label>
<div class="search-row"><input id="search-input" type="search" autocomplete="off" enterkeyhint="search"><button type="submit">${w.find}</button></div>
</form>
<p id="search-summary" class="message-line" role="status"></p>
<ol id="search-results" class="results" aria-label="${w.results}" dir="${book.direction}"></ol>`,
)}
${panel(l, 'share', w.share)}
${panel(l, 'goto', w.goTo)}
<main id="book" class="book" aria-label="${title}" aria-roledescription="${w.flipbook}" tabindex="-1" dir="${book.direction}"${bookLang}>
<button type="button" class="edge left ${leftEdge}" data-action="${leftEdge}" aria-label="${edgeLabel[leftEdge]}"></button>
<button type="button" class="edge right ${rightEdge}" data-action="${rightEdge}" aria-label="${edgeLabel[rightEdge]}"></button>
<div class="view" id="view"><div class="stage" id="stage"></div></div>
${book.status !== 'done' && html`<p class="notice" role="status">${w.stillPreparing}</p>`}
<noscript><p class="noscript">${w.noScript} <a href="${textPage}">${w.readText}</a>.</p>${noscriptPages(l, book, textPage, pageCount)}</noscript>
</main>
</div>
<div id="live" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
<script type="application/json" id="flipbook-data">${trusted(jsonForScript(data))}</script>`,
  );
};
