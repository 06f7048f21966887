// A page jumped to can be read before its image arrives: its text drawn in place, each line (or
// word) at its box and stretched to it, and taken away once the image is there. Its lines come
// from the document's lines.json, fetched once the first pages are in (./wordsAhead.ts): drawn as
// the figure is made, in its first frame, measured on a canvas (no layout to wait for). Where
// they are not here, a page's words (words.json: a few KB where the image is 80-140 KB) are asked
// for when the image is slow: a page turned to is in the browser's cache from the preloads
// (./preload.ts) and shows at once, without asking. A page without words (a scan) waits for its
// image as before. The layer is hidden from assistive technology: the image's alternative text
// already says the page's text.
import type { Book, Word } from './book.ts';

/** How long the image may take before the words are asked for. */
const WAIT_MS = 100;
/** A box narrower than this share of its height a letter holds a word turned on its side. */
const TURNED = 0.15;
/** A page of more words than this is a table of figures: its image is awaited. */
const MOST_WORDS = 3000;

/** The face the words are drawn in (the layer's, and the one they are measured in). */
const FACE = '"DejaVu Serif", Georgia, "Times New Roman", serif';
/** The size words are measured at: a width at any other size is this one's, scaled. */
const MEASURED_AT = 100;

export const textInPlace = (
  figure: HTMLElement,
  img: HTMLImageElement,
  book: Book,
  n: number,
  /** the figure's size in CSS pixels (it is not in the document yet: nothing to measure) */
  size: { w: number; h: number },
) => {
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
    if (loaded || img.complete) return;
    if (words.length === 0 || words.length > MOST_WORDS) return;
    draw(figure, words, size);
  };
  // Here already (the document's lines, or words fetched ahead): in the figure's first frame.
  const here = book.wordsNow(n);
  if (here) drawn(here);
  else
    setTimeout(() => {
      if (loaded || img.complete || !figure.isConnected) return;
      void book.words(n).then((words) => figure.isConnected && drawn(words));
    }, WAIT_MS);
};

let measure: CanvasRenderingContext2D | null = null;
/** Each character's width at MEASURED_AT px, measured once for the session. */
const widths = new Map<string, number>();
/** Characters kept at most (a book in a script of thousands of them). */
const MOST_KEPT = 5000;
/**
 * Letters that take another form beside their neighbours (Arabic, Syriac, N'Ko, the Indic and
 * South-East Asian scripts, joiners): alone, an Arabic letter is a quarter wider than joined, so
 * a text of them is measured whole.
 */
const SHAPED = /[\u0590-\u0fff\u1000-\u109f\u1780-\u18af\ufb1d-\ufdff\ufe70-\ufefe]|\u200c|\u200d/;
/** Right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko..., Hanifi Rohingya, Adlam). */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe]|\ud803[\udd00-\udd3f]|\ud83a[\udd00-\udd5f]/;
/**
 * A text's width at MEASURED_AT px in FACE: the sum of its characters' (from a canvas, which lays
 * nothing out), each measured once: a page's lines cost a few lookups a character, not a text
 * shaping each (kerning and ligatures aside: the line is stretched to its box either way); a
 * text in a script whose letters join, whole.
 */
const widthOf = (text: string) => {
  if (!measure) {
    measure = document.createElement('canvas').getContext('2d');
    if (measure) measure.font = `${MEASURED_AT}px ${FACE}`;
  }
  if (SHAPED.test(text)) return measure?.measureText(text).width ?? 0;
  let sum = 0;
  for (const character of text) {
    let width = widths.get(character);
    if (width === undefined) {
      width = measure?.measureText(character).width ?? 0;
      if (widths.size < MOST_KEPT) widths.set(character, width);
    }
    sum += width;
  }
  return sum;
};

const draw = (figure: HTMLElement, words: Word[], size: { w: number; h: number }) => {
  const { w: width, h: height } = size;
  if (!width || !height) return;
  const layer = document.createElement('div');
  layer.className = 'words-in-place';
  layer.setAttribute('aria-hidden', 'true');
  layer.style.fontFamily = FACE;
  for (const word of words) {
    // A word set upright or turned (a narrow, tall box): drawn across, it would be a smudge.
    // (Its letters counted without their marks, fully vowelled Arabic having as many marks:
    // counted so only where the plain count says turned, which spares most lines the pattern.)
    const across = word.w * width;
    const most = TURNED * word.h * height;
    if (across < most * word.t.length && across < most * word.t.replace(/\p{M}/gu, '').length)
      continue;
    // the box holds the glyphs' ascent and descent: the font a little smaller than the box
    const px = Math.max(1, word.h * height * 0.8);
    const natural = (widthOf(word.t) * px) / MEASURED_AT;
    const span = document.createElement('span');
    span.textContent = word.t;
    // In the order it is read (the text pass's): the browser lays it out in the direction the
    // text pass found its paragraph read in, which its first character marks (RLM, LRM); a line
    // of a version processed before, or a word, by its first letter.
    if (word.t.charCodeAt(0) === 0x200f) span.dir = 'rtl';
    else if (word.t.charCodeAt(0) !== 0x200e && RTL.test(word.t)) span.dir = 'auto';
    Object.assign(span.style, {
      left: `${word.x * 100}%`,
      top: `${word.y * 100}%`,
      fontSize: `${px}px`,
      // stretched or narrowed to its box's width
      ...(natural > 0 ? { transform: `scaleX(${((word.w * width) / natural).toFixed(3)})` } : {}),
    });
    layer.append(span);
  }
  // Under the links and search hits (.overlay), over the empty image.
  figure.insertBefore(layer, figure.querySelector('.overlay'));
};
