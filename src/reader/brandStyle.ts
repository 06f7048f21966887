// A workspace's branding as a stylesheet over the reader's own (served at /reader/brand/<key>.css,
// after reader.css): the accent, made readable in either theme, and the background behind the
// pages with marks readable on it. A brand colour is the publisher's; legibility is the reader's:
// an accent too pale for the light theme is darkened until its text reads (4.5:1, WCAG AA) on the
// lightest grey it is drawn on there, one too dark for the dark theme lightened the same way.

const channels = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
const toHex = (rgb: number[]) =>
  `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** WCAG's relative luminance of a #rrggbb colour. */
export const luminance = (hex: string) => {
  const [r = 0, g = 0, b = 0] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

/** WCAG's contrast ratio of two colours. */
export const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return ((x ?? 0) + 0.05) / ((y ?? 0) + 0.05);
};

/** `colour` mixed toward `toward` (white or black) just enough to read 4.5:1 on `on`. */
export const readableOn = (colour: string, on: string, toward: string) => {
  const from = channels(colour);
  const to = channels(toward);
  for (let step = 0; step <= 20; step++) {
    const mixed = toHex(from.map((c, i) => c + ((to[i] ?? 0) - c) * (step / 20)));
    if (contrast(mixed, on) >= 4.5) return mixed;
  }
  return toward;
};

/** The greys an accent is drawn on as text: the lightest of the dark theme, the darkest of the light. */
const DARK_UI = '#3a3f49';
const LIGHT_UI = '#e1e5eb';

export const brandStylesheet = (brand: { accent: string | null; background: string | null }) => {
  const rules: string[] = [];
  if (brand.accent) {
    rules.push(
      `:root{--accent:${readableOn(brand.accent, DARK_UI, '#ffffff')}}`,
      `@media (prefers-color-scheme: light){:root{--accent:${readableOn(brand.accent, LIGHT_UI, '#000000')}}}`,
    );
  }
  if (brand.background) {
    // the page arrows and the like, drawn on the background: dark on a light one, light on a dark
    const onBackground = luminance(brand.background) > 0.18 ? '#2b2f36' : '#e4e7ec';
    rules.push(`:root{--bg:${brand.background};--on-bg:${onBackground}}`);
    // On a background as light as paper the shadow alone loses the pages' edges: a hairline too.
    if (contrast(brand.background, '#ffffff') < 1.25) {
      rules.push('.page{box-shadow:0 0 0 1px rgba(0,0,0,.16),0 6px 24px var(--shadow)}');
    }
  }
  return `${rules.join('\n')}\n`;
};
