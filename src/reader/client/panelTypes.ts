// What the side panels (./panels.ts) and the modules that fill them (./contentsPanel.ts,
// ./thumbnailsPanel.ts, ./gotoPanel.ts, ./sharePanel.ts, ./searchPanel.ts) share: apart, so that
// the panels, which fetch those modules, and the modules do not import each other.
import type { Book } from './book.ts';

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
export type Builder = (
  body: HTMLElement,
  reader: Reader,
  close: () => void,
  built: Set<string>,
) => void | Promise<void>;
