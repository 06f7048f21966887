// A preview's Changes panel (/p/<token>): what differs from the live version, page by page, from
// the preview's comparison (compare.json, asked again every few seconds until it is made). Each
// changed, inserted or moved page is a jump to it; a changed page also opens the compare view
// (./compareView.ts). Loaded the first time the panel opens (./panels.ts), or at once when the
// address asks for a page's comparison (#compare=N, the pull request's links).
import { type Changed, openCompare } from './compareView.ts';
import type { Builder, Reader } from './panelTypes.ts';
import { say } from './say.ts';

export type Compare = {
  pages_before: number;
  changed: Changed[];
  inserted: number[];
  removed: number[];
  moved: { before: number; after: number }[];
  failure?: string;
};

const AGAIN_MS = 3_000;

/** The comparison, once made (null until then, or when it cannot be had now). */
export const fetchCompare = async (reader: Reader): Promise<Compare | null> => {
  const url = reader.book.data.preview?.compare;
  if (!url) return null;
  const answer = await fetch(url, { cache: 'no-store' }).catch(() => null);
  if (!answer?.ok) return null;
  return ((await answer.json()) as { compare: Compare | null }).compare;
};

const item = (text: string, onChoose?: () => void) => {
  const li = document.createElement('li');
  if (!onChoose) {
    li.className = 'heading';
    li.textContent = text;
    return li;
  }
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'change';
  button.textContent = text;
  button.addEventListener('click', onChoose);
  li.append(button);
  return li;
};

const render = (body: HTMLElement, reader: Reader, close: () => void, compare: Compare) => {
  const summary = document.createElement('p');
  summary.className = 'message-line';
  const list = document.createElement('ul');
  list.className = 'changes';
  if (compare.failure) {
    summary.textContent = say('changesFailed', { reason: compare.failure });
    body.replaceChildren(summary);
    return;
  }
  const total =
    compare.changed.length +
    compare.inserted.length +
    compare.removed.length +
    compare.moved.length;
  summary.textContent =
    total === 0
      ? say('changesNone')
      : say('changesSummary', {
          before: compare.pages_before,
          changed: compare.changed.length,
          inserted: compare.inserted.length,
          removed: compare.removed.length,
          moved: compare.moved.length,
        });
  const label = (n: number) => reader.book.label(n);
  const goTo = (n: number) => () => {
    close();
    reader.jump(n);
    document.getElementById('book')?.focus();
  };
  // in the preview's page order: what a reviewer meets turning its pages
  const entries: [number, HTMLLIElement][] = [
    ...compare.changed.map((c): [number, HTMLLIElement] => [
      c.after,
      item(say('changedPage', { label: label(c.after), areas: c.regions.length }), () => {
        reader.jump(c.after);
        openCompare(reader, c, document.activeElement as HTMLElement | null);
      }),
    ]),
    ...compare.inserted.map((n): [number, HTMLLIElement] => [
      n,
      item(say('insertedPage', { label: label(n) }), goTo(n)),
    ]),
    ...compare.moved.map((m): [number, HTMLLIElement] => [
      m.after,
      item(say('movedPage', { label: label(m.after), before: m.before }), goTo(m.after)),
    ]),
    ...compare.removed.map((n): [number, HTMLLIElement] => [
      n - 0.5,
      item(say('removedPage', { n })),
    ]),
  ];
  entries.sort((a, b) => a[0] - b[0]);
  list.append(...entries.map(([, li]) => li));
  body.replaceChildren(summary, ...(total > 0 ? [list] : []));
};

export const buildChanges: Builder = async (body, reader, close) => {
  const waiting = document.createElement('p');
  waiting.className = 'message-line';
  waiting.setAttribute('role', 'status');
  waiting.textContent = say('changesComparing');
  body.replaceChildren(waiting);
  // The first answer before the panel shows; while the comparison is being made, asked again
  // in the background (the panel opens at once, saying so).
  const look = async (): Promise<void> => {
    const compare = await fetchCompare(reader);
    if (compare) return render(body, reader, close, compare);
    setTimeout(look, AGAIN_MS);
  };
  await look();
};

/** #compare=N: the comparison of page N, opened over the book (a pull request's link). */
export const openFromAddress = async (reader: Reader, hash: string) => {
  const asked = Number(/[#&]compare=(\d+)/.exec(hash)?.[1] ?? 0);
  if (!asked) return;
  const compare = await fetchCompare(reader);
  const page = compare?.changed.find((c) => c.after === asked);
  reader.jump(asked);
  if (page) openCompare(reader, page, null);
};
