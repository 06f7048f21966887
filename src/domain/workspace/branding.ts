// A workspace's branding, shown by the reader of each of its flipbooks (docs/reader.md): an accent
// colour, a background behind the pages, and a logo in the reader's bar. Colours are #rrggbb; the
// logo is an image the app has already made small (src/app/branding.ts), carried in the event
// itself: a few kilobytes, so the record alone tells what readers saw, and any store can serve it.

/** A logo as stored: WebP, its size in pixels, its bytes in base64. */
export type Logo = { type: 'image/webp'; width: number; height: number; data: string };

export type Branding = { accent: string | null; background: string | null; logo: Logo | null };

export const NO_BRANDING: Branding = { accent: null, background: null, logo: null };

/** The most a logo may weigh once made small (its base64 is a third more). */
export const LOGO_BYTES = 48 * 1024;
/** The box a logo is fitted into, in pixels: wide and short, for a bar. */
export const LOGO_BOX = { width: 480, height: 160 } as const;

/** A colour as given ("#1A2B3C", "#abc"), as kept (#1a2b3c); null when it is not one. */
export const colourOf = (given: string): string | null => {
  const value = given.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(value)) return value;
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(value);
  return short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}` : null;
};

/** Whether a logo is one the app made: WebP, in the box, within the weight. */
export const isLogo = (logo: Logo) =>
  logo.type === 'image/webp' &&
  Number.isInteger(logo.width) &&
  Number.isInteger(logo.height) &&
  logo.width >= 1 &&
  logo.height >= 1 &&
  logo.width <= LOGO_BOX.width &&
  logo.height <= LOGO_BOX.height &&
  /^[A-Za-z0-9+/]*={0,2}$/.test(logo.data) &&
  logo.data.length <= Math.ceil(LOGO_BYTES / 3) * 4;
