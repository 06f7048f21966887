// The thumbnails panel: every page small, a button to it. Loaded the first time the panel opens
// (./panels.ts).
import type { Builder } from './panelTypes.ts';
import { say } from './say.ts';

/**
 * Every page as a small image (img_min, loaded lazily as the grid scrolls), a button to it.
 * Arrow keys move between them, Home/End to the first and last.
 */
export const buildThumbnails: Builder = (body, reader, close) => {
  const grid = document.createElement('div');
  grid.className = 'thumbs';
  // Laid out in reading order: right to left in a right-to-left book, as its arrow keys go.
  grid.dir = reader.book.rtl ? 'rtl' : 'ltr';
  grid.setAttribute('role', 'group');
  grid.setAttribute('aria-label', say('pages'));
  const { book } = reader;
  for (let n = 1; n <= book.total; n++) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'thumb';
    button.dataset.page = String(n);
    button.setAttribute('aria-label', say('page', { label: book.label(n) }));
    const page = book.pages.get(n);
    const frame = document.createElement('span');
    frame.className = 'thumb-frame';
    frame.style.aspectRatio = String(book.aspect(n));
    if (page) {
      const img = document.createElement('img');
      img.loading = 'lazy';
      img.decoding = 'async';
      img.alt = '';
      img.src = book.url(n, 'min.jpg');
      frame.append(img);
    }
    const caption = document.createElement('span');
    caption.className = 'thumb-label';
    caption.textContent = book.label(n);
    caption.setAttribute('aria-hidden', 'true');
    button.append(frame, caption);
    grid.append(button);
  }
  grid.addEventListener('click', (e) => {
    if (!(e.target instanceof Element)) return;
    const button = e.target.closest<HTMLElement>('[data-page]');
    if (!button) return;
    // On a phone the panel covers the book: it closes to show the page chosen.
    if (window.matchMedia('(max-width: 719px)').matches) close();
    reader.jump(Number(button.dataset.page));
  });
  grid.addEventListener('keydown', (e) => {
    if (!(e.target instanceof Element)) return;
    const button = e.target.closest<HTMLElement>('[data-page]');
    if (!button) return;
    const columns = Math.max(
      1,
      Math.round(grid.clientWidth / (button.getBoundingClientRect().width || 1)),
    );
    const steps: Record<string, number> = {
      ArrowRight: reader.book.rtl ? -1 : 1,
      ArrowLeft: reader.book.rtl ? 1 : -1,
      ArrowDown: columns,
      ArrowUp: -columns,
    };
    const step = steps[e.key];
    const n = Number(button.dataset.page);
    const target = e.key === 'Home' ? 1 : e.key === 'End' ? book.total : step ? n + step : null;
    if (target === null) return;
    e.preventDefault();
    grid
      .querySelector<HTMLElement>(`[data-page="${Math.min(book.total, Math.max(1, target))}"]`)
      ?.focus();
  });
  body.append(grid);
  reader.panels?.follow(reader.shown());
  grid.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'center' });
};
