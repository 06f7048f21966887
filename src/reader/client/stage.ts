// The pages on the stage: each at its own shape, its image with srcset describing the real pixel
// widths of the three renditions, its links as real <a> elements over the image, and the search
// hits lit on it. Only the pages on screen are in the DOM.
import { plainText } from './altText.ts';
import type { Book, PageLink, Word } from './book.ts';
import { imageSizes, renditionWidths, type Side, type Slot } from './layout.ts';
import { say } from './say.ts';
import { textInPlace } from './textInPlace.ts';
import { askedAgain, isStandInImage, nextTry, type Tries } from './upgrade.ts';

/** How a page is drawn: its image's fetch priority, the zoom, and whether it takes links. */
export type FigureOptions = {
  priority?: 'high' | 'low' | 'auto';
  scale?: number;
  interactive?: boolean;
};

/**
 * A page's figure at the given CSS size. `side` is left/right (in a spread) or single; null
 * n is the empty side beside the cover: drawn as nothing, it only holds the spine in place.
 */
export const pageFigure = (
  book: Book,
  n: Side,
  side: string,
  size: Slot,
  options: FigureOptions = {},
): HTMLElement => {
  const figure = document.createElement('figure');
  figure.className = `page ${side}`;
  figure.style.width = `${size.w}px`;
  figure.style.height = `${size.h}px`;
  if (n === null) {
    figure.classList.add('blank');
    figure.setAttribute('aria-hidden', 'true');
    return figure;
  }
  figure.dataset.n = String(n);
  const page = book.pages.get(n);
  if (!page) {
    figure.classList.add('pending');
    figure.textContent = say('preparing', { label: book.label(n) });
    return figure;
  }
  const img = document.createElement('img');
  img.dataset.n = String(n);
  img.alt = book.alts.get(n) ?? say('page', { label: book.label(n) });
  if (!book.alts.has(n)) book.alt(n).then((alt) => (img.alt = alt ?? img.alt));
  // Before the source: the request goes out as soon as it is set.
  img.setAttribute('fetchpriority', options.priority ?? 'auto');
  img.decoding = 'async';
  const [min, mid, max] = renditionWidths(page.w, page.h);
  // The intrinsic size of the image the browser starts from (mid): the real pixels, never the
  // long edge given as the width.
  img.width = mid;
  img.height = Math.round((mid * page.h) / page.w) || mid;
  img.srcset = `${book.url(n, 'min.jpg')} ${min}w, ${book.url(n, 'mid.jpg')} ${mid}w, ${book.url(n, 'max.jpg')} ${max}w`;
  img.sizes = imageSizes(size.w * (options.scale ?? 1));
  img.src = book.url(n, 'mid.jpg');
  img.draggable = false;
  // The largest image still rendering comes as the next smaller one (src/http/files.ts): asked
  // again later, a few times (./upgrade.ts), under a new URL each time.
  let tries: Tries | undefined;
  img.addEventListener('load', () => {
    if (!img.currentSrc.includes('max.jpg')) return;
    if (!isStandInImage(img.naturalWidth, Number.parseFloat(img.sizes))) return;
    const next = nextTry(tries, performance.now());
    if (!next) return;
    tries = next;
    setTimeout(() => {
      const again = askedAgain(book.url(n, 'max.jpg'), next.tries);
      img.srcset = img.srcset.replace(/\S*max\.jpg\S*/, again);
    }, next.notBefore - performance.now());
  });
  figure.append(img);
  if (options.interactive !== false) {
    const layer = document.createElement('div');
    layer.className = 'overlay';
    figure.append(layer);
    textInPlace(figure, img, book, n, size);
  }
  return figure;
};

/** The links of page n as anchors over its image, positioned in fractions of the page. */
export const drawLinks = (figure: Element, links: PageLink[] | undefined, book: Book) => {
  const layer = figure.querySelector('.overlay');
  if (!layer || !links?.length) return;
  for (const [i, link] of links.entries()) {
    const a = document.createElement('a');
    a.className = 'link';
    a.dataset.link = String(i); // its place among the page's links: counted by it (./beacon.ts)
    const [x, y, w, h] = link.rect;
    Object.assign(a.style, {
      left: `${x * 100}%`,
      top: `${y * 100}%`,
      width: `${w * 100}%`,
      height: `${h * 100}%`,
    });
    if (link.kind === 'page') {
      a.href = `#page=${link.page}`;
      a.dataset.page = String(link.page);
      const label = book.label(link.page);
      const text = plainText(link.text);
      a.setAttribute('aria-label', say(text ? 'linkNamed' : 'linkTo', { text, label }));
    } else if (link.kind === 'uri' && /^(https?|mailto):/i.test(link.uri)) {
      a.href = link.uri;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      a.setAttribute('aria-label', plainText(link.text) || link.uri);
    } else {
      continue;
    }
    a.title = a.getAttribute('aria-label') ?? '';
    layer.append(a);
  }
};

/** Lights the given word boxes ([{ x, y, w, h }] in fractions of the page) on a page figure. */
export const drawHits = (figure: Element, boxes: Word[]) => {
  const layer = figure.querySelector('.overlay');
  if (!layer) return;
  for (const old of layer.querySelectorAll('.hit')) old.remove();
  for (const box of boxes) {
    const mark = document.createElement('span');
    mark.className = 'hit';
    Object.assign(mark.style, {
      left: `${box.x * 100}%`,
      top: `${box.y * 100}%`,
      width: `${box.w * 100}%`,
      height: `${box.h * 100}%`,
    });
    layer.append(mark);
  }
};

/** Whether an image has loaded (or failed: nothing to wait for then). */
export const settled = (img: HTMLImageElement): Promise<unknown> =>
  img.complete
    ? Promise.resolve()
    : new Promise((resolve) => {
        img.addEventListener('load', resolve, { once: true });
        img.addEventListener('error', resolve, { once: true });
      });
