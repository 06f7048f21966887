// A workspace's reader branding (src/domain/workspace/branding.ts): colours as given, and a logo
// made small here, once, whatever was uploaded: any PNG, JPEG, WebP or GIF (its first frame),
// turned upright, fitted into 480 × 160 and written as WebP of at most 48 KB. What readers are
// served is always this image, never the upload (no SVG: a script could ride in one).
import sharp from 'sharp';
import { InvalidInput } from '../domain/errors.ts';
import { LOGO_BOX, LOGO_BYTES, type Logo } from '../domain/workspace/branding.ts';
import type { Db } from '../readTables/readTable.ts';
import { findBrandByKey, findBrandOf } from '../readTables/workspaces.ts';
import type { Store } from '../store/store.ts';
import { runWorkspaceCommand } from './commands.ts';
import type { EventMetadata } from './eventContext.ts';

/** The most an uploaded logo may weigh before it is made small. */
export const LOGO_UPLOAD_BYTES = 2 * 1024 * 1024;
const FORMATS = new Set(['png', 'jpeg', 'webp', 'gif']);
/** A decompression bomb stops here: 25 megapixels is a 5000 × 5000 image. */
const MAX_PIXELS = 25_000_000;

/** The logo readers will see, made from an uploaded image. */
export const makeLogo = async (upload: Buffer): Promise<Logo> => {
  if (upload.length > LOGO_UPLOAD_BYTES) {
    throw new InvalidInput('The logo is too large: at most 2 MB');
  }
  // The header only (sharp throws at once for an empty buffer: inside the chain, a refusal too).
  const meta = await Promise.resolve()
    .then(() => sharp(upload, { limitInputPixels: false }).metadata())
    .catch(() => null);
  if (!meta || !FORMATS.has(meta.format ?? '')) {
    throw new InvalidInput('The logo must be a PNG, JPEG, WebP or GIF image');
  }
  if ((meta.width ?? 0) * (meta.height ?? 0) > MAX_PIXELS) {
    throw new InvalidInput('The logo is too large: at most 25 megapixels');
  }
  // Lower qualities only for a logo too detailed for the first: most weigh a few KB.
  for (const quality of [90, 75, 55]) {
    const made = await sharp(upload, { limitInputPixels: MAX_PIXELS })
      .rotate()
      .resize({ ...LOGO_BOX, fit: 'inside', withoutEnlargement: true })
      .webp({ quality, alphaQuality: 90 })
      .toBuffer({ resolveWithObject: true })
      .catch(() => {
        throw new InvalidInput('The logo could not be read as an image');
      });
    if (made.data.length <= LOGO_BYTES) {
      return {
        type: 'image/webp',
        width: made.info.width,
        height: made.info.height,
        data: made.data.toString('base64'),
      };
    }
  }
  throw new InvalidInput('The logo is too detailed: it must weigh at most 48 KB at 480 × 160');
};

/**
 * Sets the reader's branding for the workspace's flipbooks. `logo`: an uploaded image, null to
 * remove the logo, absent to keep it.
 */
export const setBranding = async (
  store: Store,
  workspaceId: string,
  input: { accent: string | null; background: string | null; logo?: Buffer | null },
  metadata: EventMetadata,
  now: Date,
) => {
  const logo = input.logo ? await makeLogo(input.logo) : input.logo;
  await runWorkspaceCommand(
    store,
    workspaceId,
    {
      type: 'SetBranding',
      data: { accent: input.accent, background: input.background, logo, now },
    },
    metadata,
  );
};

/** A workspace's branding as the dashboard's page shows it, or null when it has none. */
export const brandOf = (db: Db, workspaceId: string) => findBrandOf(db, workspaceId);

/** A branding by the key its files are named by (the reader's /reader/brand/<key>.css|webp). */
export const brandByKey = (db: Db, key: string) => findBrandByKey(db, key);
