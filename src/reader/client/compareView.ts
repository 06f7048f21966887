// A changed page of a preview, before and after (./changesPanel.ts opens it): side by side on a
// wide screen; on a phone one at a time, a swipe (or the Before / After tabs) between them. The
// changed areas are outlined on both, in the page's fractions, so they line up whatever the
// images' sizes. A modal dialog: focus goes in and comes back, Escape or Close shuts it.
import type { Reader } from './panelTypes.ts';
import { say } from './say.ts';

/** A changed page as the comparison gives it (the API's ChangedPage, the part used here). */
export type Changed = {
  before: number;
  after: number;
  regions: [number, number, number, number][];
};

let current: { dialog: HTMLElement; returnTo: HTMLElement | null } | null = null;

const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
) => Object.assign(document.createElement(tag), props);

/** One side: the page's image under its outlined areas. */
const side = (
  id: string,
  caption: string,
  src: string,
  alt: string,
  aspect: number,
  changed: Changed,
) => {
  // a tab panel (one at a time on a phone), focusable so the keyboard reaches each side
  const figure = el('div', { className: 'compare-side', id, tabIndex: 0 });
  figure.setAttribute('role', 'tabpanel');
  figure.setAttribute('aria-labelledby', `${id}-tab`);
  const page = el('div', { className: 'compare-page' });
  // the page's own shape before its image arrives: no jump when it does (the stylesheet fits it)
  page.style.setProperty('--aspect', String(aspect));
  page.append(el('img', { src, alt, decoding: 'async' }));
  for (const [x, y, w, h] of changed.regions) {
    const area = el('span', { className: 'compare-area' });
    area.style.left = `${x * 100}%`;
    area.style.top = `${y * 100}%`;
    area.style.width = `${w * 100}%`;
    area.style.height = `${h * 100}%`;
    page.append(area);
  }
  const fit = el('div', { className: 'compare-fit' });
  fit.append(page);
  figure.append(el('p', { className: 'compare-caption', textContent: caption }), fit);
  return figure;
};

export const closeCompare = () => {
  if (!current) return;
  const { dialog, returnTo } = current;
  current = null;
  dialog.remove();
  document.body.classList.remove('comparing');
  (returnTo?.isConnected ? returnTo : document.getElementById('book'))?.focus();
};

export const openCompare = (reader: Reader, changed: Changed, returnTo: HTMLElement | null) => {
  closeCompare();
  const label = reader.book.label(changed.after);
  const aspect = reader.book.aspect(changed.after);
  const dialog = el('section', { className: 'compare', id: 'compare' });
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  dialog.setAttribute('aria-labelledby', 'compare-title');
  const head = el('div', { className: 'panel-head' });
  const title = el('h2', {
    id: 'compare-title',
    textContent: say('compareTitle', { label }),
  });
  const close = el('button', { type: 'button', className: 'panel-close' });
  close.setAttribute('aria-label', say('closeCompare'));
  close.innerHTML =
    '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M6 6l12 12M18 6L6 18"/></svg>';
  close.addEventListener('click', closeCompare);
  head.append(title, close);

  const sides = el('div', { className: 'compare-sides' });
  const [before, after] = (
    [
      ['before', 'before.jpg', 'beforeImage'],
      ['after', 'mid.jpg', 'afterImage'],
    ] as const
  ).map(([which, file, alt]) =>
    side(
      `compare-${which}`,
      say(which),
      reader.book.url(changed.after, file),
      say(alt, { label }),
      aspect,
      changed,
    ),
  );
  if (!before || !after) return;
  sides.append(before, after);

  // The tabs a phone shows (a wide screen shows both sides and hides them).
  const tabs = el('div', { className: 'compare-tabs' });
  tabs.setAttribute('role', 'tablist');
  const tab = (figure: HTMLElement, text: string) => {
    const button = el('button', { type: 'button', id: `${figure.id}-tab`, textContent: text });
    button.setAttribute('role', 'tab');
    button.setAttribute('aria-controls', figure.id);
    button.addEventListener('click', () =>
      sides.scrollTo({ left: figure.offsetLeft - sides.offsetLeft, behavior: 'smooth' }),
    );
    return button;
  };
  const tabBefore = tab(before, say('before'));
  const tabAfter = tab(after, say('after'));
  tabs.append(tabBefore, tabAfter);
  // The side in view is the selected tab (a swipe changes it as a tap on a tab does).
  const select = () => {
    const showingAfter = sides.scrollLeft > sides.clientWidth / 2;
    tabBefore.setAttribute('aria-selected', String(!showingAfter));
    tabAfter.setAttribute('aria-selected', String(showingAfter));
  };
  sides.addEventListener('scroll', select, { passive: true });
  select();

  dialog.append(head, tabs, sides);
  dialog.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      closeCompare();
    } else if (e.key === 'Tab') {
      // kept inside the dialog while it is open
      const focusable = [...dialog.querySelectorAll<HTMLElement>('button, [tabindex="0"]')].filter(
        (b) => b.offsetParent !== null,
      );
      const first = focusable[0];
      const last = focusable.at(-1);
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last?.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first?.focus();
      }
    }
  });
  document.body.append(dialog);
  document.body.classList.add('comparing');
  current = { dialog, returnTo };
  close.focus();
};
