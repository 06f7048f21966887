// What a flipbook's reader URL shows now, in the CLI's words: `status` says only whether it is
// archived, so a flipbook whose only version failed was listed as `published` with a URL that
// answers 404, and `edit --visibility links` printed a URL that now answers 404 to its readers
// without a word. Pure: list, show and edit print what it says.
import type { Availability, FlipbookListItem } from '../../../src/contract/flipbooks.ts';
import { safe } from './output.ts';

type Book = Pick<FlipbookListItem, 'id' | 'status' | 'visibility' | 'url'> & {
  versions: { status: string; is_active: boolean }[];
  /** absent from a server older than this client: then found from the versions given */
  availability?: Availability;
};

/** The server's word; from an older server, what its versions tell (a list's: the active one). */
export const availabilityOf = (book: Book): Availability =>
  book.availability ??
  (book.status === 'archived'
    ? 'archived'
    : book.versions.some((v) => v.is_active)
      ? 'available'
      : book.versions.length > 0 && book.versions.every((v) => v.status === 'error')
        ? 'failed'
        : 'unpublished');

/** The list's status column: published, unpublished, failed or archived. */
export const stateWord = (book: Book) => {
  const state = availabilityOf(book);
  return state === 'available' ? 'published' : state;
};

/** Its reader URL, or null when there is nothing to read there (every version failed). */
export const readerUrl = (book: Book) => (availabilityOf(book) === 'failed' ? null : book.url);

/**
 * Lines that say what its URL shows when that is not "the book, to anyone": why it is not
 * readable, and who may read it.
 * @param reason why its newest version failed, when known
 */
export const readerNotes = (book: Book, reason?: string) => {
  const notes: string[] = [];
  switch (availabilityOf(book)) {
    case 'failed':
      notes.push(
        `Failed: no version could be processed, so it has no reader URL (it answers 404)${reason ? `. The newest: ${safe(reason)}` : ''}. ` +
          `Publish a new version: flipbook version add ${book.id} FILE`,
      );
      break;
    case 'unpublished':
      notes.push('Not published yet: its URL answers 404 until a version is processed');
      break;
    case 'archived':
      notes.push(`Archived: its URL answers "not available" until flipbook unarchive ${book.id}`);
      break;
    case 'available':
      break;
  }
  if (book.visibility === 'workspace') {
    notes.push(
      "Workspace only: its URL opens for the workspace's members signed in to the dashboard; anyone else is asked to sign in, or gets a 404",
    );
  } else if (book.visibility === 'links') {
    notes.push(
      `Links only: its URL answers 404 to anyone but the workspace's members, signed in; readers need a share link (flipbook share create ${book.id} LABEL)`,
    );
  }
  return notes;
};
