// A page jumped to can be read before its image arrives: its words (words.json, made by
// processing: a few KB where the image is 80-140 KB) drawn in place, each at its box and sized
// to it, and taken away once the image is there. Only when the image is slow: a page turned to
// is in the browser's cache from the preloads (./preload.ts) and shows at once, without asking
// for its words. Words already here (fetched ahead for the contents' and links' targets,
// ./wordsAhead.ts) are drawn in the first frame, without the wait. A page without words (a scan)
// waits for its image as before. The layer is hidden from assistive technology: the image's
// alternative text already says the page's text.
import type { Book, Word } from './book.ts';

/** How long the image may take before the words are asked for. */
const WAIT_MS = 100;
/** A box narrower than this share of its height a letter holds a word turned on its side. */
const TURNED = 0.15;
/** A page of more words than this is a table of figures: its image is awaited. */
const MOST_WORDS = 3000;

export const textInPlace = (figure: HTMLElement, img: HTMLImageElement, book: Book, n: number) => {
  if (img.complete) return;
  let loaded = false;
  // The image, or a deep zoom's tile over it (./deepZoom.ts): real pixels, the words give way.
  figure.addEventListener(
    'load',
    (e) => {
      if (!(e.target instanceof HTMLImageElement) || loaded) return;
      loaded = true;
      figure.querySelector('.words-in-place')?.remove();
    },
    { capture: true },
  );
  const drawn = (words: Word[]) => {
    if (loaded || img.complete || !figure.isConnected) return;
    if (words.length === 0 || words.length > MOST_WORDS) return;
    draw(figure, words);
  };
  const here = book.wordsNow(n);
  // (the figure is not in the document yet: the next frame has it, and its size)
  if (here) requestAnimationFrame(() => drawn(here));
  else
    setTimeout(() => {
      if (loaded || img.complete || !figure.isConnected) return;
      void book.words(n).then(drawn);
    }, WAIT_MS);
};

const draw = (figure: HTMLElement, words: Word[]) => {
  const width = figure.clientWidth;
  const height = figure.clientHeight;
  if (!width || !height) return;
  const layer = document.createElement('div');
  layer.className = 'words-in-place';
  layer.setAttribute('aria-hidden', 'true');
  // A word set upright or turned (a narrow, tall box): drawn across, it would be a smudge.
  const across = words.filter((word) => word.w * width >= TURNED * word.t.length * word.h * height);
  for (const word of across) {
    const span = document.createElement('span');
    span.textContent = word.t;
    Object.assign(span.style, {
      left: `${word.x * 100}%`,
      top: `${word.y * 100}%`,
      // the box holds the glyphs' ascent and descent: the font a little smaller than the box
      fontSize: `${Math.max(1, word.h * height * 0.8)}px`,
    });
    layer.append(span);
  }
  // Under the links and search hits (.overlay), over the empty image.
  figure.insertBefore(layer, figure.querySelector('.overlay'));
  // Each word stretched or narrowed to its box's width: one layout read for all of them.
  const spans = [...layer.children] as HTMLElement[];
  const natural = spans.map((span) => span.offsetWidth);
  spans.forEach((span, i) => {
    const wanted = (across[i]?.w ?? 0) * width;
    const has = natural[i] ?? 0;
    if (has > 0 && wanted > 0) span.style.transform = `scaleX(${(wanted / has).toFixed(3)})`;
  });
};
