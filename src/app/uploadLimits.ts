// The plan limits an upload can be refused on before its body is read: a free-plan user sending
// 300 MB hears the 422 at once instead of after the upload. The size comes from what the request
// declares (its Content-Length, less what the rest of the body may take), so a body sent without
// a length (chunked) is held to the limits as it arrives, and every limit is checked again, on
// what was received, by the use case itself (createFlipbook, addVersion).

import { RuleBroken } from '../domain/errors.ts';
import { checkFlipbookCount, checkVersionCount, PLAN_LIMITS } from '../domain/plans.ts';
import { countWorkspaceFlipbooks } from '../readTables/flipbookCounts.ts';
import { findFlipbookBySlug } from '../readTables/flipbooks.ts';
import type { Db } from '../readTables/readTable.ts';
import { countVersions } from '../readTables/versions.ts';
import type { Caller } from './caller.ts';

const MB = 1024 * 1024;

export type UploadTarget =
  | { adds: 'flipbook' }
  | { adds: 'version'; flipbookId: string }
  /** publishing to a slug: a version of its flipbook, or a new flipbook when there is none */
  | { adds: 'any'; slug: string };

/**
 * @param fileBytesAtLeast the least the file can be, from the request's declared length; null
 *   when it declares none
 */
export const refuseEarly = async (
  db: Db,
  caller: Caller,
  fileBytesAtLeast: number | null,
  upload: UploadTarget,
) => {
  const limit = PLAN_LIMITS[caller.plan].maxUploadBytes;
  if (fileBytesAtLeast !== null && fileBytesAtLeast > limit) {
    throw new RuleBroken(
      `File too large for the ${caller.plan} plan: the upload limit is ${limit / MB} MB, this upload is ${(fileBytesAtLeast / MB).toFixed(1)} MB`,
    );
  }
  const flipbookId =
    upload.adds === 'version'
      ? upload.flipbookId
      : upload.adds === 'any'
        ? ((await findFlipbookBySlug(db, caller.workspaceId, upload.slug))?.flipbook_id ?? null)
        : null;
  if (flipbookId === null) {
    checkFlipbookCount(caller.plan, await countWorkspaceFlipbooks(db, caller.workspaceId));
  } else {
    checkVersionCount(caller.plan, await countVersions(db, flipbookId));
  }
};
