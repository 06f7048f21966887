// The bars above and below the book, on a phone: they make way for the page once the reader turns
// it by touch; a tap on the page brings them back (and hides them again). A key press shows them:
// they hold the controls.
import type { Dom } from './dom.ts';

export const showBars = ({ area, phone }: Dom, shown: boolean) => {
  document.body.classList.toggle('reading', !shown && phone.matches);
  if (!shown && document.activeElement?.closest('.bar, .controls')) area.focus();
};
