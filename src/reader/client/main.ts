// The flipbook reader. No third-party code and no third-party requests: bundled by the daemon
// (src/reader/assets.ts) into one script, and what the first page does not need (the panels,
// search, deep zoom) into chunks it imports on first use. It shows one page (narrow screens) or a
// two-page spread with the cover alone (wide screens), each page at its own shape; loads only the
// pages near the current one (srcset picks min/mid/max for the screen and the zoom); turns pages
// with a curl unless the reader prefers reduced motion; mirrors everything for a right-to-left
// book. The stage never scrolls: the wheel turns pages, Ctrl+wheel and pinches zoom.

import { tileGrid, tileLevels } from '../../domain/page/tiles.ts';
import { createBeacon } from './beacon.ts';
import { createBook, type FlipbookData, type SizeRun } from './book.ts';
import type { Pt } from './curl.ts';
import type { DrawTiles } from './deepZoom.ts';
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
import { curlLeaf, type Leaf, swing } from './leaf.ts';
import { createPanels } from './panels.ts';
import type { Reader } from './panelTypes.ts';
import { say } from './say.ts';
import type { Search } from './searchPanel.ts';
import { drawLinks, pageFigure, settled } from './stage.ts';
import { createZoom, MAX } from './zoom.ts';

/** An element of the reader's page, which always renders it (src/reader/readerPage.ts). */
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const one = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;

const data: FlipbookData = JSON.parse(byId('flipbook-data').textContent ?? '');
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

/** Deep zoom's tiles (./deepZoom.ts), fetched the first time a reader zooms in; see loadSearch. */
let tiles: Promise<DrawTiles | null> | undefined;
const loadTiles = () =>
  import('./deepZoom.ts').then(
    (m) => m.createTiles({ book, stage, area, zoomNow: () => zoom.scale }),
    () => null,
  );

let wasZoomed = false;
const zoom = createZoom({
  area,
  view,
  onSettle: (scale) => {
    // srcset picks img_max once the page is shown big enough to need it.
    for (const img of stage.querySelectorAll<HTMLImageElement>('img[data-n]')) {
      const width = img.parentElement?.getBoundingClientRect().width ?? 0;
      img.sizes = imageSizes(width);
    }
    // (at 1× there are no tiles: none to draw or to take away until a reader zooms in)
    if (scale > 1.001) tiles ??= loadTiles();
    tiles?.then((draw) => {
      if (draw) draw(scale);
      else tiles = undefined; // its module did not come: asked again at the next zoom
    });
  },
  // As far as the largest tiles stay sharp (16,000 px on the page's long side), at least 4×.
  most: () => {
    const page = stage.querySelector<HTMLElement>('.stage > figure[data-n]');
    const size = book.pages.get(Number(page?.dataset.n));
    if (!page || !size) return MAX;
    const { width } = tileGrid(size.w, size.h, tileLevels(size.w, size.h));
    return Math.min(16, Math.max(MAX, width / (page.offsetWidth * devicePixelRatio)));
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
    search?.then((s) => s?.highlight());
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

/** A turn set up on the stage: its leaf, where its corner starts and ends, and its ways out. */
type Turn = {
  leaf: Leaf;
  box: HTMLElement;
  from: Pt;
  to: Pt;
  fromRight: boolean;
  end: () => void;
  undo: () => void;
  /** the counter and the spoken page say where the turn goes */
  tell: () => void;
};

/**
 * Sets up the turn to page `target`: beneath, the pages it reveals (and, in a spread, the page it
 * lands on); over them, clipped to the book, the leaf: the page lifting, its back the page it
 * becomes (blank paper for a page alone). Held at its top or bottom corner (`top`). Null when the
 * pages change at once instead: reduced motion, zoomed, a hidden tab, pages of other shapes.
 */
const prepareTurn = (target: number, top = false, held = false): Turn | null => {
  const from = visible(current);
  const to = visible(target);
  if (
    turning ||
    firstOf(to) === firstOf(from) ||
    reducedMotion.matches ||
    zoom.pannable ||
    !stage.firstElementChild ||
    document.hidden ||
    !sameShapes(from, to)
  ) {
    return null;
  }
  const forward = firstOf(to) > firstOf(from);
  const single = to.length === 1;
  // A page alone turns about its spine edge (its left, or its right in a right-to-left book),
  // forward by lifting, back by coming down again; a spread's leaf lifts from the side it leaves.
  const fromRight = single ? !book.rtl : forward !== book.rtl;
  const screenTo = onScreen(to, book.rtl);
  const sizes = slotSizes(screenTo, book.aspect, stage.clientWidth, stage.clientHeight);
  const side = sides(screenTo.length);
  const liftIndex = single ? 0 : fromRight ? 1 : 0;
  const fromScreen = onScreen(from, book.rtl);
  const under = single
    ? [pageFigure(book, forward ? target : firstOf(from), 'single', slot(sizes, 0))]
    : screenTo.map((n, i) =>
        pageFigure(
          book,
          i === liftIndex ? n : (fromScreen[i] ?? null),
          side[i] ?? 'single',
          slot(sizes, i),
        ),
      );
  const size = slot(sizes, liftIndex);
  const face = (n: Side) => pageFigure(book, n, 'face', size, { interactive: false });
  const front = face(single ? (forward ? firstOf(from) : target) : (fromScreen[liftIndex] ?? null));
  const back = face(single ? null : (screenTo[1 - liftIndex] ?? null));
  back.className = back.className.replace(' blank', ''); // a page alone shows paper behind
  const frame = document.createElement('div');
  frame.className = 'turn';
  frame.setAttribute('aria-hidden', 'true');
  const leafBox = document.createElement('div');
  leafBox.className = 'leaf';
  frame.append(leafBox);
  const was = current;
  current = target;
  turning = true;
  show([...under, frame]);
  stage.classList.toggle('spread', !single);
  // Over the pages beneath, clipped to them: the leaf never leaves the book.
  const box = stage.getBoundingClientRect();
  const rects = under.map((f) => f.getBoundingClientRect());
  const place = (
    el: HTMLElement,
    r: { left: number; top: number; width: number; height: number },
    o: { left: number; top: number },
  ) =>
    Object.assign(el.style, {
      left: `${r.left - o.left}px`,
      top: `${r.top - o.top}px`,
      width: `${r.width}px`,
      height: `${r.height}px`,
    });
  const left = Math.min(...rects.map((r) => r.left));
  const topEdge = Math.min(...rects.map((r) => r.top));
  const all = {
    left,
    top: topEdge,
    width: Math.max(...rects.map((r) => r.right)) - left,
    height: Math.max(...rects.map((r) => r.bottom)) - topEdge,
  };
  place(frame, all, box);
  place(leafBox, rects[liftIndex] ?? all, all);
  const leaf = curlLeaf(leafBox, front, back, fromRight, top ? 0 : size.h);
  const [start, end] = single && !forward ? [leaf.over, leaf.rest] : [leaf.rest, leaf.over];
  leaf.set(start);
  // The counter says where the turn goes as it starts; a held leaf's only once let go past
  // the middle (one that falls back would have said a page never shown).
  const tell = () => updateChrome(to);
  if (!held) tell();
  // A turn or jump asked for meanwhile has already happened: the last one wins.
  const ticket = ++moves;
  const finish = (n: number) => () => {
    turning = false;
    if (ticket !== moves) return;
    current = n;
    render();
  };
  return {
    leaf,
    box: leafBox,
    from: start,
    to: end,
    fromRight,
    end: finish(target),
    undo: finish(was),
    tell,
  };
};

/**
 * A leaf held by a drag (a finger or the mouse): its corner follows the pointer; let go past the
 * middle (or flicked) it turns, otherwise it falls back.
 */
let held: { turn: Turn; at: Pt } | null = null;
/** Counts turns and jumps: a turn ending finishes only if none came after it. */
let moves = 0;
const drag = {
  start: (side: 'left' | 'right', y: number) => {
    // a pointer moving left brings the next page in a left-to-right book
    const forward = (side === 'left') !== book.rtl;
    const shown = visible(current);
    if (forward ? lastOf(shown) >= book.total : firstOf(shown) <= 1) return false;
    const turn = prepareTurn(
      forward ? nextStart() : Math.max(1, prevStart()),
      y < area.clientHeight / 2,
      true,
    );
    if (!turn) return false;
    held = { turn, at: turn.from };
    return true;
  },
  /** The pointer moved `dx` sideways since it took hold, and is at `y` in the book. */
  move: (dx: number, y: number) => {
    if (!held) return;
    const { turn } = held;
    // The corner goes as far sideways as the pointer went, and up or down to its height: held
    // low, the leaf turns from its bottom corner; raised, it curls toward the pointer.
    const top = turn.box.getBoundingClientRect().top - area.getBoundingClientRect().top;
    held.at = { x: turn.from.x + (turn.fromRight ? dx : -dx), y: y - top };
    turn.leaf.set(held.at);
  },
  end: (flick: boolean) => {
    if (!held) return;
    const { turn, at } = held;
    held = null;
    // a quarter of the way, the corner half a page across: for a page alone the spine is its
    // outer edge, which no finger reaches
    const quarter = turn.from.x + (turn.to.x - turn.from.x) / 4;
    const past = turn.to.x < turn.from.x ? at.x < quarter : at.x > quarter;
    const done = past || flick;
    if (done) {
      showBars(false);
      turn.tell();
    }
    swing(turn.leaf, at, done ? turn.to : turn.from, 300).then(done ? turn.end : turn.undo);
  },
};

/** Turns to page n: the leaf between here and there curls over, or the pages change at once. */
const go = (n: number) => {
  const target = clamp(n);
  const turn = prepareTurn(target);
  if (!turn) {
    moves += 1; // a turn still playing must not take the reader back when it ends
    // (during a turn, another goes at once: the keys never wait for the animation)
    if (firstOf(visible(target)) !== firstOf(visible(current))) zoom.reset(false);
    current = target;
    render();
    return;
  }
  swing(turn.leaf, turn.from, turn.to, 650).then(turn.end);
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

// Fetched on first use (chunks of their own, src/http/staticAssets.ts): what a reader does not
// need for the first page does not weigh on it. Null when its module did not come (the network,
// or the daemon upgraded since the page loaded: a new release serves new chunks only).
let search: Promise<Search | null> | undefined;
const loadSearch = () =>
  import('./searchPanel.ts').then(
    (m) => m.createSearch({ reader }),
    () => null,
  );
// Opening the panel fetches it, so the first query seldom waits.
panels.onOpen = (name) => {
  if (name === 'search') search ??= loadSearch();
};
byId('search-form').addEventListener('submit', (event) => {
  event.preventDefault();
  beacon.record({ k: 'search' });
  search ??= loadSearch();
  search.then((found) => {
    if (found) return found.run();
    search = undefined; // asked again with the next query
    byId('search-summary').textContent = say('notLoaded');
  });
});

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
    // by touch only: a click by assistive technology or a mouse keeps the bars
    if ((event as PointerEvent).pointerType === 'touch') showBars(false);
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

// PageDown turns forward here too (a range's own PageDown goes back)
slider.addEventListener('keydown', (e) => {
  const turn = { PageDown: next, PageUp: prev }[e.key];
  if (!turn) return;
  e.preventDefault();
  e.stopPropagation();
  turn();
});
slider.addEventListener('input', () => go(pageOfSliderStep(Number(slider.value), spread())));

/**
 * On a phone the bars make way for the page once the reader turns it by touch; a tap on the
 * page brings them back (and hides them again). A key press shows them: they hold the controls.
 */
const showBars = (shown: boolean) => {
  document.body.classList.toggle('reading', !shown && phone.matches);
  if (!shown && document.activeElement?.closest('.bar, .controls')) area.focus();
};
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
  drag,
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
