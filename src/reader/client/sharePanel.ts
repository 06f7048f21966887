// The share panel: links, the QR code and the embed snippet. Loaded the first time the panel
// opens (./panels.ts).
import type { Builder } from './panelTypes.ts';
import { say } from './say.ts';

/**
 * Sharing: the device's share sheet where there is one; a link to this page and to the book, each
 * with Copy; a QR code of the link to this page (drawn by the server: ./readerRoutes.ts); an
 * <iframe> snippet, opening at this page or not, at the size asked.
 */
export const buildShare: Builder = (body, reader) => {
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
