// The reader's script and stylesheet (see src/http/staticAssets.ts): the script's modules are in
// ./client, bundled at start; served at /reader/<hashed name>, the chunks it imports on first use
// beside it.
import { join } from 'node:path';
import { findAssetIn, scriptAsset, stylesheetAsset } from '../http/staticAssets.ts';

export type { Asset } from '../http/staticAssets.ts';

export const SCRIPT = scriptAsset('reader.js', join(import.meta.dirname, 'client', 'main.ts'));
export const STYLESHEET = stylesheetAsset(
  'reader.css',
  join(import.meta.dirname, 'assets', 'reader.css'),
);

/** The asset a /reader/<file> names, and whether by its hashed (immutable) name. */
export const findAsset = (file: string) => findAssetIn([SCRIPT, STYLESHEET], file);

export const assetUrl = (asset: { hashed: string }) => `/reader/${asset.hashed}`;
