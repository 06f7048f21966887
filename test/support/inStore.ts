// Workspaces and flipbooks made straight through the store, for tests of what comes after an
// upload (lists, the reader, the core's rules): the `CreateFlipbook` command with a placeholder
// file, no blob.
import { randomUUID } from 'node:crypto';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import type { EventMetadata } from '../../src/app/eventContext.ts';
import { createWorkspace } from '../../src/app/workspaces.ts';
import type { UploadedFile } from '../../src/domain/flipbook/flipbook.ts';
import type { Plan } from '../../src/domain/workspace/workspace.ts';
import type { Store } from '../../src/store/store.ts';
import { TEST_METADATA } from './metadata.ts';

/** A file as an upload records it; its checksum names no stored original. */
export const placeholderFile = (name = 'b.pdf'): UploadedFile => ({
  name,
  type: 'pdf',
  mimeType: 'application/pdf',
  size: 1,
  checksum: 'ab'.repeat(32),
});

export const createInStore = async (
  store: Store,
  book: {
    workspaceId: string;
    title: string;
    slug: string;
    now?: Date;
    file?: UploadedFile;
    /** ids chosen by the caller (a test that writes files for them first) */
    flipbookId?: string;
    versionId?: string;
  },
  metadata: EventMetadata = TEST_METADATA,
) => {
  const flipbookId = book.flipbookId ?? randomUUID();
  const versionId = book.versionId ?? randomUUID();
  await runFlipbookCommand(
    store,
    flipbookId,
    {
      type: 'CreateFlipbook',
      data: {
        flipbookId,
        workspaceId: book.workspaceId,
        title: book.title,
        slug: book.slug,
        description: '',
        versionId,
        file: book.file ?? placeholderFile(),
        now: book.now ?? new Date(),
      },
    },
    metadata,
  );
  return { flipbookId, versionId };
};

/** A workspace of its own (a random name): quotas and slugs never meet another test's. */
export const workspaceInStore = (store: Store, plan: Plan = 'team', now = new Date()) =>
  createWorkspace(store, { name: `w-${randomUUID().slice(0, 8)}`, plan }, TEST_METADATA, now);

/** A flipbook (a random slug) in a Team workspace of its own, created at `now`. */
export const bookInStore = async (store: Store, now = new Date()) => {
  const workspaceId = (await workspaceInStore(store, 'team', now)).id;
  const slug = `s-${randomUUID().slice(0, 8)}`;
  return { workspaceId, ...(await createInStore(store, { workspaceId, title: 't', slug, now })) };
};
