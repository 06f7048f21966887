// The flipbook reader. No third-party code and no third-party requests: bundled by the daemon
// (src/reader/assets.ts) into one script. It shows one page (narrow screens) or a two-page
// spread with the cover alone (wide screens), each page at its own shape; loads only the pages
// near the current one (srcset picks min/mid/max for the screen and the zoom); turns pages with
// a curl unless the reader prefers reduced motion; mirrors everything for a right-to-left book.
// The stage never scrolls: the wheel turns pages, Ctrl+wheel and pinches zoom.
import { createBeacon } from './beacon.ts';
import { createBook, type FlipbookData, type SizeRun } from './book.ts';
import { attachGestures } from './gestures.ts';
import {
  firstOf,
  imageSizes,
  isSpread,
  lastOf,
  onScreen,
  pageForInput,
  pageOfSliderStep,
  type Side,
  type Slot,
  sliderStepOf,
  sliderSteps,
  slotSizes,
  spreadOf,
} from './layout.ts';
import { createPanels, type Reader } from './panels.ts';
import { createSearch } from './searchPanel.ts';
import { drawLinks, pageFigure, settled } from './stage.ts';
import { say, setWords } from './words.ts';
import { createZoom } from './zoom.ts';

/** An element of the reader's page, which always renders it (src/reader/readerPage.ts). */
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const one = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;

const data: FlipbookData = JSON.parse(byId('flipbook-data').textContent ?? '');
setWords(data.words);
const book = createBook(data);
const beacon = createBeacon(data.beacon);

const area = byId('book');
const view = byId('view');
const stage = byId('stage');
const slider = byId<HTMLInputElement>('slider');
const counter = byId('counter');
const pager = one('.pager');
const live = byId('live');
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
const coarse = '(pointer: coarse) and ';
const phone = window.matchMedia(`${coarse}(max-width: 719px), ${coarse}(max-height: 500px)`);
/** A phone on its side: one page fitted to the width, read from its top down. */
const sideways = window.matchMedia(`${coarse}(max-height: 500px) and (orientation: landscape)`);

let current = 1;
let turning = false;
let renders = 0;
const turnListeners: (() => void)[] = [];

/** The i-th of the sizes slotSizes gives (one per page shown: always there). */
const slot = (sizes: Slot[], i: number): Slot => sizes[i] ?? { w: 0, h: 0 };

const clamp = (n: number) => Math.min(Math.max(1, Math.round(n) || 1), book.total);
// A one-page document is never a spread: its page has the whole stage.
const spread = () =>
  book.total > 1 && !sideways.matches && isSpread(stage.clientWidth, stage.clientHeight);
const visible = (n: number) => spreadOf(n, book.total, spread());
const sides = (count: number) => (count === 2 ? ['left', 'right'] : ['single']);

let wasZoomed = false;
const zoom = createZoom({
  area,
  view,
  onSettle: () => {
    // srcset picks img_max once the page is shown big enough to need it.
    for (const img of stage.querySelectorAll<HTMLImageElement>('img[data-n]')) {
      const width = img.parentElement?.getBoundingClientRect().width ?? 0;
      img.sizes = imageSizes(width);
    }
  },
  onZoom: (scale, zoomed) => {
    if (zoomed && !wasZoomed) beacon.record({ k: 'zoom' }); // each time a reader zooms in
    wasZoomed = zoomed;
    one<HTMLButtonElement>('[data-action="zoom-out"]').disabled = !zoomed;
    one('[data-action="zoom-reset"]').hidden = !zoomed;
    one<HTMLButtonElement>('[data-action="zoom-in"]').disabled = scale >= zoom.max * 0.999;
    area.tabIndex = zoomed ? 0 : -1;
  },
  bounds: () => {
    // The pages' place at 1×, from their boxes on screen and the view's scale as drawn (offsets
    // would be whole pixels: half a pixel off is two at 4×).
    const v = view.getBoundingClientRect();
    const s = v.width / (view.offsetWidth || 1);
    const box = { l: Infinity, t: Infinity, r: -Infinity, b: -Infinity };
    for (const page of stage.querySelectorAll<HTMLElement>('.stage > figure')) {
      const r = page.getBoundingClientRect();
      box.l = Math.min(box.l, (r.left - v.left) / s);
      box.t = Math.min(box.t, (r.top - v.top) / s);
      box.r = Math.max(box.r, (r.right - v.left) / s);
      box.b = Math.max(box.b, (r.bottom - v.top) / s);
    }
    return box.r > box.l ? box : null;
  },
});

/** The label of the pages shown, as the book prints them, and as numbers. */
const rangeLabel = (shown: number[], label: (n: number) => string) =>
  shown.map((n) => label(n)).join('–');

const updateChrome = (pages: Side[]) => {
  const shown = pages.filter((p) => p !== null);
  const numbers = rangeLabel(shown, String);
  const printed = rangeLabel(shown, book.label);
  const total = book.total;
  counter.textContent =
    printed === numbers ? `${numbers} / ${total}` : `${printed} (${numbers} / ${total})`;
  const spoken =
    printed === numbers
      ? say('pageOf', { n: numbers, total })
      : say('pageOfLabelled', { label: printed, n: numbers, total });
  // A one-page document has nothing to turn: no slider, no "1 / 1".
  pager.hidden = total < 2;
  slider.max = String(sliderSteps(total, spread()));
  slider.value = String(sliderStepOf(current, spread()));
  slider.setAttribute('aria-valuetext', spoken);
  live.textContent = spoken;
  const hash = `#page=${current}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  for (const button of document.querySelectorAll<HTMLButtonElement>(
    '[data-action="prev"], [data-action="first"]',
  )) {
    button.disabled = firstOf(pages) <= 1;
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>(
    '[data-action="next"], [data-action="last"]',
  )) {
    button.disabled = lastOf(pages) >= total;
  }
  // The button just pressed went disabled (the last page): focus stays on the book.
  if ((document.activeElement as HTMLButtonElement | null)?.disabled) area.focus();
  panels.follow(shown);
  beacon.show(shown);
  for (const listener of turnListeners) listener();
};

/** Draws the pages shown with page `current`, then their links and hits, then preloads. */
const render = () => {
  const pages = visible(current);
  stopPreloads(pages);
  const screen = onScreen(pages, book.rtl);
  const sizes = slotSizes(screen, book.aspect, stage.clientWidth, stage.clientHeight);
  const lead = firstOf(pages);
  const side = sides(screen.length);
  const figures = screen.map((n, i) =>
    pageFigure(book, n, side[i] ?? 'single', slot(sizes, i), {
      priority: n === lead ? 'high' : 'auto',
      scale: zoom.scale,
    }),
  );
  // A page alone beside an empty side (the cover, a last even page) stands in the middle, at the
  // size it has in the spreads: no half-empty book.
  show(figures.filter((f) => !f.classList.contains('blank')));
  stage.classList.toggle('spread', screen.length === 2 && !screen.includes(null));
  // On a phone held sideways the page is as wide as the book, its top first.
  const fitted = slot(sizes, 0).w;
  zoom.setBase(
    sideways.matches && screen.length === 1 && fitted > 0
      ? Math.max(1, area.clientWidth / fitted)
      : 1,
  );
  updateChrome(pages);
  const shownNow = ++renders;
  // Links, highlights and the pages one turn away only once these images are in: nothing
  // competes with the cover.
  Promise.all([...stage.querySelectorAll('img')].map(settled)).then(() => {
    if (shownNow !== renders) return;
    preload();
    drawPageLinks(shownNow);
    search.highlight();
  });
};

/** Puts pages on the stage; focus that was on one of them (a link) stays on the book. */
const show = (nodes: HTMLElement[]) => {
  const hadFocus = stage.contains(document.activeElement);
  stage.replaceChildren(...nodes);
  if (hadFocus) area.focus({ preventScroll: true });
};

/**
 * The links of the pages on the stage, once the document's structure is here. They are one stop
 * for Tab (a contents page can have a hundred): the arrow keys go from one to the next.
 */
const drawPageLinks = (shownNow = renders) =>
  book.structure().then((structure) => {
    if (shownNow !== renders) return;
    for (const figure of stage.querySelectorAll<HTMLElement>('figure[data-n]')) {
      if (figure.querySelector('.link')) continue;
      drawLinks(figure, structure.links?.[Number(figure.dataset.n) - 1], book);
    }
    pageLinks().forEach((a, i) => {
      a.tabIndex = i ? -1 : 0;
    });
  });
const pageLinks = () => [...stage.querySelectorAll<HTMLElement>('a.link')];

/** An arrow key on a page's link: the next or previous link gets focus (and the Tab stop). */
const moveAmongLinks = (from: HTMLElement, key: string) => {
  const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[key];
  if (!step) return false;
  const links = pageLinks();
  const to = links[(links.indexOf(from) + step + links.length) % links.length];
  if (!to) return false;
  from.tabIndex = -1;
  to.tabIndex = 0;
  to.focus();
  return true;
};

const nextStart = () => lastOf(visible(current)) + 1;
const prevStart = () => firstOf(visible(current)) - 1;

/** Images loading for the pages one turn away (not in the document). */
let preloading: HTMLImageElement[] = [];

/** Warms the browser cache for the pages one turn away, at the size they will be shown. */
const preload = () => {
  const box = stage.querySelector('figure[data-n]')?.getBoundingClientRect();
  const size = { w: box?.width || 300, h: box?.height || 400 };
  const shown = visible(current);
  for (const n of [...visible(clamp(nextStart())), ...visible(clamp(prevStart()))]) {
    // An image that is not in the document still loads: the browser keeps it for the turn.
    if (n && !shown.includes(n) && book.pages.has(n)) {
      const figure = pageFigure(book, n, 'single', size, { priority: 'low', interactive: false });
      const img = figure.querySelector('img');
      if (img) preloading.push(img);
    }
  }
};

/**
 * Stops the preloads still under way: after a jump elsewhere they would share a slow link with
 * the pages now wanted (on slow 4G, two of them made a jump take twice as long). One that is the
 * page now shown is left to finish.
 */
const stopPreloads = (wanted: Side[]) => {
  for (const img of preloading) {
    if (img.complete || wanted.includes(Number(img.dataset.n))) continue;
    img.removeAttribute('srcset');
    img.removeAttribute('src');
  }
  preloading = [];
};

/**
 * Whether a leaf can turn between these views: a rigid leaf has one shape, so the pages it
 * carries and the ones beneath must share theirs (a portrait page turning onto a landscape one
 * would be drawn stretched), and no side may be empty (a lone page stands centred). Otherwise
 * the pages change at once.
 */
const sameShapes = (from: Side[], to: Side[]) => {
  if (from.length !== to.length || from.includes(null) || to.includes(null)) {
    return (
      from.length === 1 &&
      to.length === 1 &&
      close(book.aspect(firstOf(from)), book.aspect(firstOf(to)))
    );
  }
  const ratios = [...from, ...to].map((n) => book.aspect(n ?? 1));
  return ratios.every((r) => close(r, ratios[0] ?? r));
};
const close = (a: number, b: number) => Math.abs(a - b) / Math.max(a, b) < 0.03;

/**
 * A jump (a link, the contents, a search result, a thumbnail, go to page) is a history entry of
 * its own, so the browser's Back comes back to where the reader was; turns only update it.
 */
const jump = (n: number) => {
  const target = clamp(n);
  if (!visible(current).includes(target)) history.pushState(null, '', `#page=${target}`);
  go(target);
};

/** Turns to page n: the leaf between here and there curls over, or the pages change at once. */
const go = (n: number) => {
  const target = clamp(n);
  const from = visible(current);
  const to = visible(target);
  if (firstOf(to) === firstOf(from) || turning) {
    current = target;
    render();
    return;
  }
  const forward = firstOf(to) > firstOf(from);
  current = target;
  if (
    reducedMotion.matches ||
    zoom.pannable ||
    !stage.firstElementChild ||
    document.hidden ||
    !sameShapes(from, to)
  ) {
    zoom.reset(false);
    render();
    return;
  }
  turning = true;
  updateChrome(to); // the counter says where the turn goes as it starts
  const fromRight = forward !== book.rtl; // the leaf lifts from the right-hand side
  const single = to.length === 1;
  const screenTo = onScreen(to, book.rtl);
  const sizes = slotSizes(screenTo, book.aspect, stage.clientWidth, stage.clientHeight);
  const side = sides(screenTo.length);
  let under: HTMLElement[];
  let leaf: HTMLElement;
  if (single) {
    // One page: the old one folds away about its spine edge (forward), or the new one folds in.
    under = [pageFigure(book, forward ? target : firstOf(from), 'single', slot(sizes, 0))];
    // The spine of a single page is its left edge (its right one in a right-to-left book).
    leaf = makeLeaf(slot(sizes, 0), forward ? 'fold-out' : 'fold-in', !book.rtl);
    leaf.append(
      pageFigure(book, forward ? firstOf(from) : target, 'front', slot(sizes, 0), {
        interactive: false,
      }),
    );
  } else {
    // A spread: beneath, the old page on the side the leaf lands and the new one where it
    // lifts; the leaf carries the old page on its front and the new one on its back.
    const fromScreen = onScreen(from, book.rtl);
    const liftIndex = fromRight ? 1 : 0;
    const landIndex = 1 - liftIndex;
    under = screenTo.map((n, i) =>
      pageFigure(
        book,
        i === landIndex ? (fromScreen[i] ?? null) : n,
        side[i] ?? 'single',
        slot(sizes, i),
      ),
    );
    leaf = makeLeaf(slot(sizes, liftIndex), 'turn', fromRight);
    leaf.append(
      pageFigure(book, fromScreen[liftIndex] ?? null, 'front', slot(sizes, liftIndex), {
        interactive: false,
      }),
      pageFigure(book, screenTo[landIndex] ?? null, 'back', slot(sizes, liftIndex), {
        interactive: false,
      }),
    );
  }
  show([...under, leaf]);
  stage.classList.toggle('spread', !single);
  placeLeaf(leaf, under, single, fromRight);
  requestAnimationFrame(() => requestAnimationFrame(() => leaf.classList.add('go')));
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    turning = false;
    render();
  };
  leaf.addEventListener('animationend', done, { once: true });
  setTimeout(done, 1000);
};

const makeLeaf = (size: Slot, kind: string, fromRight: boolean) => {
  const leaf = document.createElement('div');
  leaf.className = `leaf ${kind} ${fromRight ? 'from-right' : 'from-left'}`;
  leaf.style.width = `${size.w}px`;
  leaf.style.height = `${size.h}px`;
  leaf.setAttribute('aria-hidden', 'true');
  return leaf;
};

/** Puts the leaf exactly over the page it lifts from (the stage centres its pages). */
const placeLeaf = (
  leaf: HTMLElement,
  under: HTMLElement[],
  single: boolean,
  fromRight: boolean,
) => {
  const box = stage.getBoundingClientRect();
  const target = single ? under[0] : under[fromRight ? 1 : 0];
  if (!target) return;
  const at = target.getBoundingClientRect();
  leaf.style.left = `${at.left - box.left}px`;
  leaf.style.top = `${at.top - box.top}px`;
};

const next = () => lastOf(visible(current)) < book.total && go(nextStart());
const prev = () => firstOf(visible(current)) > 1 && go(Math.max(1, prevStart()));
/** Screen directions: in a right-to-left book the next page is to the left. */
const toLeft = () => (book.rtl ? next() : prev());
const toRight = () => (book.rtl ? prev() : next());

const reader: Reader = {
  book,
  go,
  jump,
  current: () => current,
  shown: () => visible(current).filter((p) => p !== null),
  pageFor: (input) => pageForInput(input, book.labels, book.total),
  onTurn: (listener) => turnListeners.push(listener),
  relayout: () => {
    if (!turning) render();
  },
};
const panels = createPanels({ reader });
reader.panels = panels;
const search = createSearch({ reader });

const toggleFullscreen = () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen?.();
};

const actions: Record<string, () => unknown> = {
  next,
  prev,
  first: () => go(1),
  last: () => go(book.total),
  'zoom-in': () => zoom.zoomIn(),
  'zoom-out': () => zoom.zoomOut(),
  'zoom-reset': () => zoom.reset(),
  fullscreen: toggleFullscreen,
};

document.addEventListener('click', (event) => {
  if (!(event.target instanceof Element)) return;
  countClick(event.target);
  const link = event.target.closest<HTMLElement>('a[data-page]');
  if (link) {
    // An internal link (in the page, the contents or the search results): turn to its page.
    event.preventDefault();
    if (panels.open && window.matchMedia('(max-width: 719px)').matches) panels.close(false);
    jump(Number(link.dataset.page));
    return;
  }
  const target = event.target.closest<HTMLElement>('[data-action]');
  const action = target && actions[target.dataset.action ?? ''];
  if (!action) return;
  if (target.classList.contains('edge')) {
    if (zoom.zoomed) return; // zoomed: the edges never flip
    showBars(false);
  }
  event.preventDefault();
  action();
});

/** A link of a page followed, or the download: counted (./beacon.ts). */
const countClick = (target: Element) => {
  const pageLink = target.closest<HTMLElement>('figure[data-n] a.link[data-link]');
  const figure = pageLink?.closest<HTMLElement>('figure[data-n]');
  if (pageLink && figure) {
    beacon.record({ k: 'link', p: Number(figure.dataset.n), l: Number(pageLink.dataset.link) });
  }
  if (target.closest('[data-action="download"]')) beacon.record({ k: 'download' });
};
byId('search-form').addEventListener('submit', () => beacon.record({ k: 'search' }));

document.addEventListener('keydown', (event) => {
  const inField =
    event.target instanceof Element && event.target.closest('input, textarea, select, .panel');
  if (inField || event.altKey) return;
  if (event.ctrlKey || event.metaKey) return; // the browser's own shortcuts
  const link = (event.target as Element).closest?.<HTMLElement>('#stage a.link');
  if (link && moveAmongLinks(link, event.key)) {
    event.preventDefault();
    return;
  }
  const pan = (dx: number, dy: number) => () => zoom.panBy(dx, dy);
  const keys: Record<string, () => unknown> = zoom.zoomed
    ? {
        ArrowRight: pan(-80, 0),
        ArrowLeft: pan(80, 0),
        ArrowDown: pan(0, -80),
        ArrowUp: pan(0, 80),
        Escape: zoom.reset,
      }
    : { ArrowRight: toRight, ArrowLeft: toLeft, ArrowDown: next, ArrowUp: prev };
  Object.assign(keys, {
    PageDown: next,
    PageUp: prev,
    Home: actions.first,
    End: actions.last,
    '+': actions['zoom-in'],
    '=': actions['zoom-in'],
    '-': actions['zoom-out'],
    0: actions['zoom-reset'],
  });
  const action = keys[event.key];
  if (!action) return;
  event.preventDefault();
  action();
});

slider.addEventListener('input', () => go(pageOfSliderStep(Number(slider.value), spread())));

/**
 * On a phone the bars make way for the page once the reader turns it by touch; a tap on the
 * page brings them back (and hides them again). A key press shows them: they hold the controls.
 */
const showBars = (shown: boolean) =>
  document.body.classList.toggle('reading', !shown && phone.matches);
document.addEventListener('keydown', () => showBars(true), true);

attachGestures({
  area,
  zoom,
  isTurning: () => turning,
  turn: (direction) => {
    showBars(false);
    ({ left: toRight, right: toLeft, forward: next, backward: prev })[direction]?.();
  },
  tap: () => showBars(document.body.classList.contains('reading')),
});

/** #page=N opens page N; #label=iv the page the book numbers "iv". */
const fromHash = () => {
  const page = /[#&]page=(\d+)/.exec(location.hash)?.[1];
  if (page) return Number(page);
  const label = /[#&]label=([^&]+)/.exec(location.hash)?.[1];
  if (label) {
    try {
      return pageForInput(decodeURIComponent(label), book.labels, book.total) ?? 1;
    } catch {
      return 1;
    }
  }
  return 1;
};
window.addEventListener('hashchange', () => go(fromHash()));

let lastSize = '';
new ResizeObserver(() => {
  const size = `${stage.clientWidth}x${stage.clientHeight}`;
  if (size === lastSize) return;
  lastSize = size;
  zoom.refit();
  if (!turning) render();
}).observe(stage);

/** The status JSON (/f/:id/status.json, src/reader/readerRoutes.ts). */
type ReaderStatus = {
  versionId: string | null;
  status: string;
  pageCount: number;
  ready: number;
  runs: SizeRun[];
};

// While the version is still processing, pick up newly ready pages now and then from the status
// JSON (a 304 when nothing changed). The stage is redrawn only when a page it shows became ready,
// and the notice floats over the book: when processing ends, nothing on screen moves.
if (data.processing) {
  const poll = async () => {
    const answer = await fetch(data.status, { cache: 'no-cache' }).catch(() => null);
    // Gone (the only version failed, the flipbook archived or deleted): stop asking, and say so.
    if (answer?.status === 404 || answer?.status === 410) {
      const notice = document.querySelector('.notice');
      if (notice) notice.textContent = say('failed');
      return;
    }
    const status: ReaderStatus | null = answer?.ok ? await answer.json().catch(() => null) : null;
    if (status && status.versionId !== data.versionId) {
      location.reload(); // another version is shown now: the page holds another book
      return;
    }
    if (status) {
      const missing = visible(current).filter((n): n is number => n !== null && !book.pages.has(n));
      const before = book.pages.size;
      book.addRuns(status.runs);
      if (book.pages.size !== before) book.forgetTexts(); // the text JSON has more pages now
      const total = Math.max(status.pageCount, status.ready, book.total);
      const grown = total !== book.total;
      book.total = total;
      if (!turning && (grown || missing.some((n) => book.pages.has(n)))) render();
      if (status.status === 'done') {
        document.querySelector('.notice')?.remove();
        data.processing = false;
        // Contents and links exist now: read them, and draw the links of the pages shown
        // (over the images as they are: nothing on screen moves).
        book.documentReady();
        if (!turning) drawPageLinks();
      }
      if (status.status === 'error') {
        const notice = document.querySelector('.notice');
        if (notice) notice.textContent = say('restFailed');
      }
      if (status.status === 'done' || status.status === 'error') return;
    }
    setTimeout(poll, 5000);
  };
  setTimeout(poll, 5000);
}

current = clamp(fromHash());
document.documentElement.classList.add('js');
lastSize = `${stage.clientWidth}x${stage.clientHeight}`;
render();
