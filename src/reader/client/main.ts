// The flipbook reader. No third-party code and no third-party requests: bundled by the daemon
// (src/reader/assets.ts) into one script, and what the first page does not need (the panels,
// search, deep zoom) into chunks it imports on first use. It shows one page (narrow screens) or a
// two-page spread with the cover alone (wide screens), each page at its own shape; loads only the
// pages near the current one (srcset picks min/mid/max for the screen and the zoom); turns pages
// with a curl unless the reader prefers reduced motion; mirrors everything for a right-to-left
// book. The stage never scrolls: the wheel turns pages, Ctrl+wheel and pinches zoom.
//
// This file is the entry: it reads the page, builds the context the modules share
// (./context.ts) and wires them: the view (./view.ts), the turns (./navigation.ts, ./drag.ts),
// the controls (./controls.ts), the panels and the search, and the pages still processing.
import { createBeacon } from './beacon.ts';
import { createBook, type FlipbookData } from './book.ts';
import { createContext } from './context.ts';
import { attachControls } from './controls.ts';
import { byId, findDom } from './dom.ts';
import { createDrag } from './drag.ts';
import { pageForInput } from './layout.ts';
import { createNavigation, pageFromHash } from './navigation.ts';
import { createPanels } from './panels.ts';
import type { Reader } from './panelTypes.ts';
import { followProcessing } from './processing.ts';
import { createReaderZoom } from './readerZoom.ts';
import { searchOnUse } from './searchOnUse.ts';
import { createView } from './view.ts';

const data: FlipbookData = JSON.parse(byId('flipbook-data').textContent ?? '');
const book = createBook(data);
const beacon = createBeacon(data.beacon);
const dom = findDom();
const { stage } = dom;
const zoom = createReaderZoom({ book, beacon, dom });
const ctx = createContext({ book, beacon, dom, zoom });

const turnListeners: (() => void)[] = [];
const view = createView(ctx, {
  onShown: (shown) => {
    panels.follow(shown);
    beacon.show(shown);
    for (const listener of turnListeners) listener();
  },
  onSettled: () => search.highlight(),
});
const nav = createNavigation(ctx, view);
const drag = createDrag(ctx, view);

const reader: Reader = {
  book,
  go: nav.go,
  jump: nav.jump,
  current: () => ctx.current,
  shown: () => ctx.visible(ctx.current).filter((p) => p !== null),
  pageFor: (input) => pageForInput(input, book.labels, book.total),
  onTurn: (listener) => turnListeners.push(listener),
  relayout: () => {
    // (a panel opened or closed: a jump that follows in this task turns at the new size)
    ctx.measure();
    if (!ctx.turning) view.render();
    compareAsked(askedHash);
  },
};
const panels = createPanels({ reader });
reader.panels = panels;
const search = searchOnUse({ reader, panels, beacon });

attachControls(ctx, { nav, panels, drag });

// A preview's address may ask for a page's comparison (#compare=N): the Changes panel's module
// opens it (fetched only then).
const compareAsked = (hash = location.hash) =>
  data.preview && /[#&]compare=\d/.test(hash)
    ? import('./changesPanel.ts').then((m) => m.openFromAddress(reader, hash)).catch(() => {})
    : undefined;
window.addEventListener('hashchange', (event) => {
  // The address the reader gave, not location.hash: a render between the change and this event
  // (a panel closing resizes the stage) writes the page shown over it (chrome.ts).
  const hash = new URL(event.newURL).hash;
  if (!compareAsked(hash)) nav.go(pageFromHash(book, hash));
});

let lastSize = '';
new ResizeObserver(() => {
  const size = `${stage.clientWidth}x${stage.clientHeight}`;
  if (size === lastSize) return;
  lastSize = size;
  ctx.measure();
  zoom.refit();
  if (!ctx.turning) view.render();
  compareAsked(askedHash);
}).observe(stage);

followProcessing(ctx, data, view);

const askedHash = location.hash; // before the first render writes #page= over it
ctx.current = ctx.clamp(pageFromHash(book));
document.documentElement.classList.add('js');
lastSize = `${stage.clientWidth}x${stage.clientHeight}`;
view.render();
compareAsked(askedHash);
