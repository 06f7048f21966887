// HTML for every page the service serves (the dashboard's, the reader's): a tagged template that
// escapes every value put into it, unless the value is itself HTML made by this tag. Escaping is
// the default, so a page cannot forget it; nesting and lists work
// (`${items.map((i) => html`<li>${i}</li>`)}`). No template language and no JSX build: pages are
// TypeScript functions that return Html (see docs/architecture.md).
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeText = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

type Value = Html | string | number | boolean | null | undefined | Value[];

const render = (value: Value): string => {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  // false, null and undefined render as nothing: `${cond && html`...`}` reads naturally.
  if (value === null || value === undefined || value === false) return '';
  return escapeText(String(value));
};

export const html = (strings: TemplateStringsArray, ...values: Value[]) =>
  new Html(
    strings.reduce(
      (out, part, i) => out + part + (i < values.length ? render(values[i] as Value) : ''),
      '',
    ),
  );

/**
 * HTML we made elsewhere and trust (an icon's SVG, JSON made safe for a script element): never
 * anything a person typed.
 */
export const trusted = (text: string) => new Html(text);
