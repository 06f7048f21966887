// The reader's script and stylesheet, read once at start: they are part of the release, not data.
// Each is served under a name holding a hash of its content (`reader.3f2a9c0d1b7e.js`), cached
// by browsers for a year as immutable: a new release brings new names, so no page ever runs an
// old script. The plain names (`reader.js`) still answer, revalidated, for anyone who kept them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Body, prepareBody } from '../http/sendBody.ts';

export type Asset = { file: string; hashed: string; type: string; body: Body };

const load = (file: string, type: string): Asset => {
  const content = readFileSync(join(import.meta.dirname, 'assets', file));
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  return {
    file,
    hashed: `${file.slice(0, dot)}.${hash}${file.slice(dot)}`,
    type,
    body: prepareBody(content, 'best'),
  };
};

export const SCRIPT = load('reader.js', 'text/javascript; charset=utf-8');
export const STYLESHEET = load('reader.css', 'text/css; charset=utf-8');

/** The asset a /reader/<file> names, and whether by its hashed (immutable) name. */
export const findAsset = (file: string) => {
  for (const asset of [SCRIPT, STYLESHEET]) {
    if (file === asset.hashed) return { asset, immutable: true };
    if (file === asset.file) return { asset, immutable: false };
  }
  return null;
};

export const assetUrl = (asset: Asset) => `/reader/${asset.hashed}`;
