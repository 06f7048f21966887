// Every read table, in the order they are created and fed during a replay.
import { apiKeys } from './apiKeys.ts';
import { flipbookCounts } from './flipbookCounts.ts';
import { flipbooks } from './flipbooks.ts';
import { idempotentUploads } from './idempotentUploads.ts';
import { jobs } from './jobs.ts';
import { pages } from './pages.ts';
import { passkeys } from './passkeys.ts';
import { previews } from './previews.ts';
import type { ReadTable } from './readTable.ts';
import { shareLinks } from './shareLinks.ts';
import { invitations, users } from './users.ts';
import { versions } from './versions.ts';
import { webhooks } from './webhooks.ts';
import { workspaces } from './workspaces.ts';

export const readTables: ReadTable[] = [
  workspaces,
  apiKeys,
  flipbooks,
  versions,
  pages,
  jobs,
  users,
  invitations,
  passkeys,
  webhooks,
  shareLinks,
  previews,
  idempotentUploads,
  // last: it locks the workspace's row until the commit (see there)
  flipbookCounts,
];

/**
 * Bump when any table's DDL or apply changes: on start, a store whose read tables were built by
 * another version is rebuilt by replay.
 */
// 15: jobs count the file store's failed attempts (issue 40). It also keeps the releases from
// before the release guard (src/store/releaseGuard.ts), which knew 14, from running beside this
// one: they try to rebuild, and the guard view stops them.
// 16: previews (issue 43).
// 18: versions keep the PDF made of an upload that was not one (pdf_checksum, issue 45).
export const READ_MODEL_VERSION = 18;
