// What surrounds the pages and says where the reader is: the counter, the slider, the spoken
// page, the address (#page=N), and the turn buttons, which go disabled at either end.
import type { Context } from './context.ts';
import { firstOf, lastOf, type Side, sliderStepOf, sliderSteps } from './layout.ts';
import { say } from './say.ts';

/** The label of the pages shown, as the book prints them, and as numbers. */
const rangeLabel = (shown: number[], label: (n: number) => string) =>
  shown.map((n) => label(n)).join('–');

/** Says that `pages` are shown, then tells `onShown` (the panels, the beacon, the listeners). */
export const updateChrome = (ctx: Context, pages: Side[], onShown: (shown: number[]) => void) => {
  const { book, spread } = ctx;
  const { counter, pager, slider, live, area } = ctx.dom;
  const shown = pages.filter((p) => p !== null);
  const numbers = rangeLabel(shown, String);
  const printed = rangeLabel(shown, book.label);
  const total = book.total;
  counter.textContent =
    printed === numbers ? `${numbers} / ${total}` : `${printed} (${numbers} / ${total})`;
  const spoken =
    printed === numbers
      ? say('pageOf', { n: numbers, total })
      : say('pageOfLabelled', { label: printed, n: numbers, total });
  // A one-page document has nothing to turn: no slider, no "1 / 1".
  pager.hidden = total < 2;
  slider.max = String(sliderSteps(total, spread()));
  slider.value = String(sliderStepOf(ctx.current, spread()));
  slider.setAttribute('aria-valuetext', spoken);
  live.textContent = spoken;
  const hash = `#page=${ctx.current}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  for (const button of document.querySelectorAll<HTMLButtonElement>(
    '[data-action="prev"], [data-action="first"]',
  )) {
    button.disabled = firstOf(pages) <= 1;
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>(
    '[data-action="next"], [data-action="last"]',
  )) {
    button.disabled = lastOf(pages) >= total;
  }
  // The button just pressed went disabled (the last page): focus stays on the book.
  if ((document.activeElement as HTMLButtonElement | null)?.disabled) area.focus();
  onShown(shown);
};
