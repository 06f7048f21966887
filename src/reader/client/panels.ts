// The side panels: contents (the PDF's outline), page thumbnails, go to page, share, and search
// (./searchPanel.ts fills its own). One is open at a time, beside the book on wide screens and
// over it on phones; the button that opens one says so (aria-expanded), Escape or its close
// button shuts it and gives focus back to that button. Each panel's content is built the first
// time it opens: nothing of it costs the first load.
import { plainText } from './altText.ts';
import type { Book, OutlineEntry } from './book.ts';
import { say } from './words.ts';

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
    // focus inside a panel that closes goes to its button, or (a choice made) to the book
    const hadFocus = panel?.contains(document.activeElement);
    if (panel) panel.hidden = true;
    document.body.classList.remove('panel-open');
    for (const b of buttons) if (b.dataset.panel === name) b.setAttribute('aria-expanded', 'false');
    open = null;
    if (returnFocus) document.querySelector<HTMLElement>(`[data-panel="${name}"]`)?.focus();
    else if (hadFocus) document.getElementById('book')?.focus();
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
  body.textContent = say('loadingContents');
  const { outline, pending } = await reader.book.structure();
  body.textContent = '';
  if (!outline?.length) {
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = say(pending ? 'contentsLater' : 'noContents');
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
  nav.dir = reader.book.data.dir; // the book's words in the book's direction, whatever the reader's
  nav.setAttribute('aria-label', say('tableOfContents'));
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

/** Go to a page by its printed label ("iv", "12") or its number. */
const buildGoto: Builder = (body, reader, close) => {
  const form = document.createElement('form');
  form.className = 'goto';
  const id = 'goto-input';
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = say(reader.book.labels.size ? 'gotoLabelled' : 'gotoNumber', {
    total: reader.book.total,
  });
  const input = document.createElement('input');
  input.id = id;
  input.type = 'text';
  input.inputMode = reader.book.labels.size ? 'text' : 'numeric';
  input.autocomplete = 'off';
  input.required = true;
  const submit = document.createElement('button');
  submit.type = 'submit';
  submit.textContent = say('go');
  const message = document.createElement('p');
  message.className = 'message-line';
  message.setAttribute('role', 'status');
  form.append(label, input, submit, message);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const n = reader.pageFor(input.value);
    if (n === null) {
      message.textContent = say('noSuchPage', { input: input.value.trim() });
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

/**
 * Sharing: the device's share sheet where there is one; a link to this page and to the book, each
 * with Copy; a QR code of the link to this page (drawn by the server: ./readerRoutes.ts); an
 * <iframe> snippet, opening at this page or not, at the size asked.
 */
const buildShare: Builder = (body, reader) => {
  const { url } = reader.book.data;
  const pageLink = () => `${url}#page=${reader.current()}`;
  const status = document.createElement('p');
  status.className = 'message-line';
  status.setAttribute('role', 'status');
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, props: object = {}) =>
    Object.assign(document.createElement(tag), props);

  if (navigator.share) {
    const sheet = el('button', {
      type: 'button',
      className: 'share-sheet',
      textContent: say('shareSheet'),
    });
    sheet.addEventListener('click', () =>
      navigator.share({ title: document.title, url: pageLink() }).catch(() => {}),
    );
    body.append(sheet);
  }

  const start = el('input', { type: 'checkbox', id: 'embed-start', checked: true });
  const size = (id: string, value: number) =>
    el('input', { type: 'number', id, value, min: 200, max: 4000, step: 10, className: 'size' });
  const width = size('embed-width', 960);
  const height = size('embed-height', 640);
  const dimension = (input: HTMLInputElement) =>
    Math.min(4000, Math.max(200, Math.round(Number(input.value)) || 200));
  const snippet = () =>
    `<iframe src="${escapeAttr(start.checked ? pageLink() : url)}" width="${dimension(width)}" height="${dimension(height)}" style="border:0" allowfullscreen title="${escapeAttr(document.title)}"></iframe>`;

  const rows: [string, string, () => string][] = [
    ['share-page', say('linkToPage'), pageLink],
    ['share-link', say('linkToBook'), () => url],
    ['share-embed', say('embed'), snippet],
  ];
  const fields: (() => void)[] = [];
  for (const [id, text, value] of rows) {
    const row = el('div', { className: 'share-row' });
    const field = el(id === 'share-embed' ? 'textarea' : 'input', {
      id,
      readOnly: true,
      value: value(),
      dir: 'ltr', // an address or a snippet reads left to right in any language
    });
    if (field instanceof HTMLTextAreaElement) field.rows = 6; // the whole snippet, no half-hidden line
    const update = () => {
      field.value = value();
    };
    fields.push(update);
    field.addEventListener('focus', () => {
      update();
      field.select();
    });
    const copy = el('button', { type: 'button', textContent: say('copy') });
    copy.setAttribute('aria-label', say('copyWhat', { what: text }));
    copy.addEventListener('click', async () => {
      update();
      status.textContent = (await copyText(field))
        ? say('copied', { what: text })
        : say('copyByHand');
    });
    row.append(el('label', { htmlFor: id, textContent: text }), field, copy);
    if (id === 'share-embed') {
      const options = el('div', { className: 'embed-options' });
      const labelled = (text: string, input: HTMLInputElement, after = false) => {
        const label = el('label', { textContent: text });
        if (after) label.prepend(input);
        else label.append(input);
        return label;
      };
      options.append(
        labelled(say('embedFromPage'), start, true),
        labelled(say('width'), width),
        labelled(say('height'), height),
      );
      options.addEventListener('input', update);
      row.append(options);
    }
    body.append(row);
  }

  const qr = el('figure', { className: 'qr' });
  const image = el('img', { width: 168, height: 168 });
  const save = el('a', { textContent: say('qrDownload'), download: 'qr-code.svg' });
  qr.append(image, save);
  const drawQr = () => {
    const n = reader.current();
    image.src = save.href = `${url}/qr.svg?page=${n}`;
    image.alt = say('qrCode', { label: reader.book.label(n) });
  };
  drawQr();
  body.append(qr, status);
  reader.onTurn(() => {
    for (const update of fields) update();
    drawQr();
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
