// The API's JSON shapes, exactly as the spec names them, built from read-table rows. Each returns
// its type in the contract (src/contract/), so a field the contract does not know fails tsc here.

import type { Availability, Flipbook } from '../contract/flipbooks.ts';
import type { Page, Version, VersionStatus } from '../contract/versions.ts';
import type { FlipbookRow } from '../readTables/flipbooks.ts';
import type { PageRow } from '../readTables/pages.ts';
import type { VersionRow } from '../readTables/versions.ts';
import type { Urls } from './urls.ts';

export const presentVersion = (v: VersionRow): Version => ({
  id: v.version_id,
  version: v.number,
  status: v.status,
  is_active: v.is_active,
  activate_on_done: v.activate_on_done,
  file_name: v.file_name,
  file_type: v.file_type,
  mime_type: v.mime_type,
  file_size: Number(v.file_size),
  width: v.width,
  height: v.height,
  created_at: v.created_at,
});

export const presentPage = (urls: Urls, versionId: string, p: PageRow): Page => ({
  id: p.page_id,
  position: p.position,
  width: p.width,
  height: p.height,
  img_max: urls.page(versionId, p.position, 'max'),
  img_mid: urls.page(versionId, p.position, 'mid'),
  img_min: urls.page(versionId, p.position, 'min'),
});

/** Every version failed processing: nothing of it was ever readable, nothing is on its way. */
export const everyVersionFailed = (versions: Pick<VersionRow, 'status'>[]) =>
  versions.length > 0 && versions.every((v) => v.status === 'error');

/**
 * What its reader URL shows now. `status` says only whether it is archived: a flipbook whose only
 * version failed is `published` with a URL that answers 404, and was listed as if readable.
 */
export const availabilityOf = (f: FlipbookRow, failed: boolean): Availability =>
  f.status === 'archived'
    ? 'archived'
    : f.active_version_id
      ? 'available'
      : failed
        ? 'failed'
        : 'unpublished';

/**
 * A flipbook without its pages: as listed (active version only) or before its pages are added.
 * @param failed every version of it failed (`versions` may be the active one only)
 */
export const presentFlipbook = (
  urls: Urls,
  f: FlipbookRow,
  versions: VersionRow[],
  failed: boolean,
): Omit<Flipbook, 'pages'> => ({
  id: f.flipbook_id,
  title: f.title,
  slug: f.slug,
  description: f.description,
  direction: f.direction ?? 'auto',
  status: f.status,
  availability: availabilityOf(f, failed),
  visibility: f.visibility,
  embed_origins: f.embed_origins,
  allow_download: f.download_allowed,
  url: urls.reader(f.flipbook_id),
  created_at: f.created_at,
  updated_at: f.updated_at,
  versions: versions.map(presentVersion),
});

/**
 * @param pagesReady pages rendered so far (they are all there once done)
 * @param converting a worker is making the version's PDF (an upload that is not one): the spec's
 *   `processing`, with `step` saying which part
 */
export const presentStatus = (
  v: VersionRow,
  pagesReady: number,
  converting = false,
): VersionStatus => ({
  version_id: v.version_id,
  status: converting ? 'processing' : v.status,
  is_active: v.is_active,
  version: v.number,
  pages: v.status === 'pending' ? 0 : v.page_count,
  // Beyond the spec: progress, pages_done of pages.
  pages_done: v.status === 'done' ? v.page_count : v.status === 'pending' ? 0 : pagesReady,
  file_name: v.file_name,
  file_size: Number(v.file_size),
  // Beyond the spec: which part of processing.
  step: converting
    ? 'converting'
    : v.status === 'pending'
      ? 'waiting'
      : v.status === 'processing'
        ? 'rendering'
        : 'finished',
  // Beyond the spec, and only for a failed version: why, in words a person can act on.
  ...(v.status === 'error' ? { error_reason: v.error ?? 'Processing failed' } : {}),
});
