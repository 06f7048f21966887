// The side panels: contents (the PDF's outline), page thumbnails, go to page, share, and search
// (./searchPanel.ts fills its own). One is open at a time, beside the book on wide screens and
// over it on phones; the button that opens one says so (aria-expanded), Escape or its close
// button shuts it and gives focus back to that button. Each panel's content is built the first
// time it opens: nothing of it costs the first load.
import { plainText } from './altText.ts';
import type { Book, OutlineEntry } from './book.ts';

/** What the panels and the search know of the reader (src/reader/client/main.ts). */
export type Reader = {
  book: Book;
  go: (n: number) => void;
  /** a jump elsewhere (not a turn): a history entry of its own, so Back comes back */
  jump: (n: number) => void;
  current: () => number;
  /** the pages shown (no empty side) */
  shown: () => number[];
  pageFor: (input: string) => number | null;
  onTurn: (listener: () => void) => void;
  relayout: () => void;
  panels?: Panels;
};

export type Panels = {
  show: (name: string) => Promise<void>;
  close: (returnFocus?: boolean) => void;
  readonly open: string | null;
  follow: (shown: number[]) => void;
  onOpen?: (name: string, panel: HTMLElement) => void;
};

/** Fills a panel's body the first time it opens. */
type Builder = (
  body: HTMLElement,
  reader: Reader,
  close: () => void,
  built: Set<string>,
) => void | Promise<void>;

/** A panel's body: the page renders one in every panel (src/reader/readerPage.ts). */
const bodyOf = (panel: HTMLElement) => panel.querySelector('.panel-body') as HTMLElement;

export const createPanels = ({ reader }: { reader: Reader }): Panels => {
  const buttons = [...document.querySelectorAll<HTMLElement>('[data-panel]')];
  let open: string | null = null;
  const built = new Set<string>();
  const builders: Record<string, Builder> = {
    contents: buildContents,
    thumbnails: buildThumbnails,
    share: buildShare,
    goto: buildGoto,
  };

  const panelOf = (name: string) => document.getElementById(`panel-${name}`);

  const close = (returnFocus = true) => {
    if (!open) return;
    const name = open;
    const panel = panelOf(name);
    if (panel) panel.hidden = true;
    document.body.classList.remove('panel-open');
    for (const b of buttons) if (b.dataset.panel === name) b.setAttribute('aria-expanded', 'false');
    open = null;
    if (returnFocus) document.querySelector<HTMLElement>(`[data-panel="${name}"]`)?.focus();
    reader.relayout();
  };

  const show = async (name: string) => {
    if (open === name) return close();
    close(false);
    const panel = panelOf(name);
    if (!panel) return;
    open = name;
    panel.hidden = false;
    document.body.classList.add('panel-open');
    for (const b of buttons) b.setAttribute('aria-expanded', String(b.dataset.panel === name));
    if (!built.has(name) && builders[name]) {
      built.add(name);
      await builders[name](bodyOf(panel), reader, () => close(false), built);
    }
    panels.onOpen?.(name, panel);
    reader.relayout();
    // Into the panel's content (the search field, the current page's thumbnail, the first
    // entry), not onto its close button.
    const body = bodyOf(panel);
    (
      body.querySelector<HTMLElement>('[aria-current]') ??
      body.querySelector<HTMLElement>('input, textarea, a, button') ??
      panel.querySelector('button')
    )?.focus();
  };

  for (const button of buttons) {
    button.addEventListener('click', (e) => {
      e.preventDefault();
      show(button.dataset.panel ?? '');
    });
  }
  for (const panel of document.querySelectorAll<HTMLElement>('.panel')) {
    panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close();
      }
    });
    panel.querySelector('.panel-close')?.addEventListener('click', () => close());
  }

  const panels: Panels = {
    show,
    close,
    get open() {
      return open;
    },
    /**
     * Marks the current page in the thumbnails, and in the contents the section it is in (the
     * last entry starting at or before the last page shown), once they exist.
     */
    follow: (shown) => {
      for (const el of document.querySelectorAll('#panel-thumbnails [aria-current]')) {
        el.removeAttribute('aria-current');
      }
      for (const n of shown) {
        document
          .querySelector(`#panel-thumbnails [data-page="${n}"]`)
          ?.setAttribute('aria-current', 'page');
      }
      const last = Math.max(...shown);
      let section: Element | null = null;
      let start = 0;
      for (const a of document.querySelectorAll<HTMLElement>('#panel-contents a[data-page]')) {
        a.removeAttribute('aria-current');
        const page = Number(a.dataset.page);
        if (page <= last && page >= start) [section, start] = [a, page];
      }
      section?.setAttribute('aria-current', 'location');
    },
  };
  return panels;
};

/** The outline, nested as the PDF has it; an entry is a link to its page (#page=N). */
const buildContents: Builder = async (body, reader, _close, built) => {
  body.textContent = 'Loading the contents…';
  const { outline, pending } = await reader.book.structure();
  body.textContent = '';
  if (!outline?.length) {
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = pending
      ? 'The contents are read once the whole document is prepared.'
      : 'This document has no table of contents.';
    body.append(p);
    // Built again when next opened, once the document is done.
    if (pending) built.delete('contents');
    return;
  }
  const list = (entries: OutlineEntry[]) => {
    const ul = document.createElement('ul');
    for (const entry of entries) {
      const li = document.createElement('li');
      if (entry.page) {
        const a = document.createElement('a');
        a.href = `#page=${entry.page}`;
        a.dataset.page = String(entry.page);
        const title = document.createElement('span');
        title.textContent = plainText(entry.title);
        const label = document.createElement('span');
        label.className = 'page-label';
        label.textContent = reader.book.label(entry.page);
        a.append(title, label);
        li.append(a);
      } else {
        const heading = document.createElement('span');
        heading.className = 'heading';
        heading.textContent = plainText(entry.title);
        li.append(heading);
      }
      if (entry.children?.length) li.append(list(entry.children));
      ul.append(li);
    }
    return ul;
  };
  const nav = document.createElement('nav');
  nav.setAttribute('aria-label', 'Table of contents');
  nav.append(list(outline));
  body.append(nav);
  reader.panels?.follow(reader.shown());
};

/**
 * Every page as a small image (img_min, loaded lazily as the grid scrolls), a button to it.
 * Arrow keys move between them, Home/End to the first and last.
 */
const buildThumbnails: Builder = (body, reader, close) => {
  const grid = document.createElement('div');
  grid.className = 'thumbs';
  // Laid out in reading order: right to left in a right-to-left book, as its arrow keys go.
  grid.dir = reader.book.rtl ? 'rtl' : 'ltr';
  grid.setAttribute('role', 'group');
  grid.setAttribute('aria-label', 'Pages');
  const { book } = reader;
  for (let n = 1; n <= book.total; n++) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'thumb';
    button.dataset.page = String(n);
    button.setAttribute('aria-label', `Page ${book.label(n)}`);
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

/** Go to a page by its printed label ("iv", "12") or its number. */
const buildGoto: Builder = (body, reader, close) => {
  const form = document.createElement('form');
  form.className = 'goto';
  const id = 'goto-input';
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = reader.book.labels.size
    ? `Page label or number (1–${reader.book.total})`
    : `Page number (1–${reader.book.total})`;
  const input = document.createElement('input');
  input.id = id;
  input.type = 'text';
  input.inputMode = reader.book.labels.size ? 'text' : 'numeric';
  input.autocomplete = 'off';
  input.required = true;
  const submit = document.createElement('button');
  submit.type = 'submit';
  submit.textContent = 'Go';
  const message = document.createElement('p');
  message.className = 'message-line';
  message.setAttribute('role', 'status');
  form.append(label, input, submit, message);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const n = reader.pageFor(input.value);
    if (n === null) {
      message.textContent = `There is no page “${input.value.trim()}”.`;
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    input.removeAttribute('aria-invalid');
    message.textContent = '';
    close();
    reader.jump(n);
    document.getElementById('book')?.focus();
  });
  body.append(form);
};

/** Copy the link, a link to this page, or an <iframe> snippet to embed the book elsewhere. */
const buildShare: Builder = (body, reader) => {
  const url = reader.book.data.url;
  const title = document.title;
  const pageLink = () => `${url}#page=${reader.current()}`;
  const rows: [string, string, () => string][] = [
    ['share-link', 'Link to this flipbook', () => url],
    ['share-page', 'Link to this page', pageLink],
    [
      'share-embed',
      'Embed on a web page',
      () =>
        `<iframe src="${escapeAttr(url)}" width="960" height="640" style="border:0" allowfullscreen title="${escapeAttr(title)}"></iframe>`,
    ],
  ];
  const status = document.createElement('p');
  status.className = 'message-line';
  status.setAttribute('role', 'status');
  for (const [id, text, value] of rows) {
    const row = document.createElement('div');
    row.className = 'share-row';
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = text;
    const field = document.createElement(id === 'share-embed' ? 'textarea' : 'input');
    field.id = id;
    field.readOnly = true;
    field.value = value();
    if (field instanceof HTMLTextAreaElement) field.rows = 7; // the whole snippet, no half-hidden line
    field.addEventListener('focus', () => {
      field.value = value();
      field.select();
    });
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.textContent = 'Copy';
    copy.setAttribute('aria-label', `Copy: ${text}`);
    copy.addEventListener('click', async () => {
      field.value = value();
      const ok = await copyText(field);
      status.textContent = ok ? `Copied: ${text.toLowerCase()}.` : 'Select the text and copy it.';
    });
    row.append(label, field, copy);
    body.append(row);
  }
  body.append(status);
  reader.onTurn(() => {
    const page = document.getElementById('share-page');
    if (page instanceof HTMLInputElement) page.value = pageLink();
  });
};

const copyText = async (field: HTMLInputElement | HTMLTextAreaElement) => {
  try {
    await navigator.clipboard.writeText(field.value);
    return true;
  } catch {
    // No clipboard API (an http page other than localhost): the selection is copied instead.
    field.select();
    return document.execCommand?.('copy') ?? false;
  }
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeAttr = (text: string) => text.replace(/[&<>"]/g, (c) => ESCAPES[c] ?? c);
