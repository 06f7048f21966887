// The side panels: contents (the PDF's outline), page thumbnails, go to page, share, and search
// (./searchPanel.ts fills its own). One is open at a time, beside the book on wide screens and
// over it on phones; the button that opens one says so (aria-expanded), Escape or its close
// button shuts it and gives focus back to that button. Each panel's content is built the first
// time it opens, by a module fetched then (./contentsPanel.ts, ./thumbnailsPanel.ts,
// ./gotoPanel.ts, ./sharePanel.ts: chunks of their own, src/http/staticAssets.ts): nothing of it
// costs the first load.
import type { Builder, Panels, Reader } from './panelTypes.ts';
import { say } from './say.ts';

/** A panel's body: the page renders one in every panel (src/reader/readerPage.ts). */
const bodyOf = (panel: HTMLElement) => panel.querySelector('.panel-body') as HTMLElement;

export const createPanels = ({ reader }: { reader: Reader }): Panels => {
  const buttons = [...document.querySelectorAll<HTMLElement>('[data-panel]')];
  let open: string | null = null;
  const built = new Set<string>();
  const builders: Record<string, () => Promise<Builder>> = {
    contents: () => import('./contentsPanel.ts').then((m) => m.buildContents),
    thumbnails: () => import('./thumbnailsPanel.ts').then((m) => m.buildThumbnails),
    share: () => import('./sharePanel.ts').then((m) => m.buildShare),
    goto: () => import('./gotoPanel.ts').then((m) => m.buildGoto),
    changes: () => import('./changesPanel.ts').then((m) => m.buildChanges),
  };

  const panelOf = (name: string) => document.getElementById(`panel-${name}`);

  const close = (returnFocus = true) => {
    asked = null;
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

  /** The panel last asked for: one whose module comes after another was asked for stays shut. */
  let asked: string | null = null;

  const show = async (name: string) => {
    if (open === name) return close();
    const panel = panelOf(name);
    if (!panel) return;
    asked = name;
    // The first time, its module first (a chunk fetched on first use): the panel appears whole.
    // The module fails to come when the network does, or when the daemon was upgraded since this
    // page loaded (a new release serves its own chunks only): said in the panel.
    const builder = built.has(name) ? undefined : builders[name];
    const build = builder && (await builder().catch(() => null));
    if (asked !== name || open === name) return; // another asked for meanwhile, or this one twice
    close(false);
    open = name;
    panel.hidden = false;
    document.body.classList.add('panel-open');
    for (const b of buttons) b.setAttribute('aria-expanded', String(b.dataset.panel === name));
    if (builder && !built.has(name)) {
      const body = bodyOf(panel);
      if (build) {
        built.add(name);
        body.replaceChildren();
        await build(body, reader, () => close(false), built);
        if (open !== name) return; // closed (or another opened) meanwhile
      } else body.textContent = say('notLoaded');
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
    const name = button.dataset.panel ?? '';
    button.addEventListener('click', (e) => {
      e.preventDefault();
      show(name);
    });
    // A pointer over the button or focus on it: its module is on its way before the click.
    const warm = () => {
      if (!built.has(name)) builders[name]?.().catch(() => {});
    };
    button.addEventListener('pointerenter', warm);
    button.addEventListener('focus', warm);
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
