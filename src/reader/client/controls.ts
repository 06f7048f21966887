// The reader's controls: its buttons (by data-action), internal links, keys, the slider and the
// gestures on the book (./gestures.ts), each turned into a move (./navigation.ts) or a zoom. The
// bars make way for the page as it is turned by touch, and come back with a key (./bars.ts).
import { showBars } from './bars.ts';
import type { Context } from './context.ts';
import type { Drag } from './drag.ts';
import { attachGestures } from './gestures.ts';
import { pageOfSliderStep } from './layout.ts';
import type { Navigation } from './navigation.ts';
import { moveAmongLinks } from './pageLinks.ts';
import type { Panels } from './panelTypes.ts';

const toggleFullscreen = () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen?.();
};

export const attachControls = (
  ctx: Context,
  { nav, panels, drag }: { nav: Navigation; panels: Panels; drag: Drag },
) => {
  const { book, beacon, zoom, dom } = ctx;
  const { area, slider } = dom;
  const { go, jump, next, prev, toLeft, toRight } = nav;

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

  /** A link of a page followed, or the download: counted (./beacon.ts). */
  const countClick = (target: Element) => {
    const pageLink = target.closest<HTMLElement>('figure[data-n] a.link[data-link]');
    const figure = pageLink?.closest<HTMLElement>('figure[data-n]');
    if (pageLink && figure) {
      beacon.record({ k: 'link', p: Number(figure.dataset.n), l: Number(pageLink.dataset.link) });
    }
    if (target.closest('[data-action="download"]')) beacon.record({ k: 'download' });
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
      if ((event as PointerEvent).pointerType === 'touch') showBars(dom, false);
    }
    event.preventDefault();
    action();
  });

  document.addEventListener('keydown', (event) => {
    const inField =
      event.target instanceof Element &&
      event.target.closest('input, textarea, select, .panel, .compare');
    if (inField || event.altKey) return;
    if (event.ctrlKey || event.metaKey) return; // the browser's own shortcuts
    const link = (event.target as Element).closest?.<HTMLElement>('#stage a.link');
    if (link && moveAmongLinks(dom.stage, link, event.key)) {
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
  slider.addEventListener('input', () => go(pageOfSliderStep(Number(slider.value), ctx.spread())));

  document.addEventListener('keydown', () => showBars(dom, true), true);

  attachGestures({
    area,
    zoom,
    isTurning: () => ctx.turning,
    turn: (direction) => {
      showBars(dom, false);
      ({ left: toRight, right: toLeft, forward: next, backward: prev })[direction]?.();
    },
    tap: () => showBars(dom, document.body.classList.contains('reading')),
    drag,
  });
};
