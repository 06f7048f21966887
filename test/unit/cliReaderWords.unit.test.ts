// What `flipbook list`, `show` and `edit` say a reader URL shows (packages/cli/src/readerWords.ts):
// a flipbook whose every version failed is failed, with no URL; a private one says who may read
// it; an older server's answer (no `availability`) is read from the versions it gives.
import { describe, expect, it } from 'vitest';
import {
  availabilityOf,
  readerNotes,
  readerUrl,
  stateWord,
} from '../../packages/cli/src/readerWords.ts';

const ID = '6f1c2a9e-0d4b-4c39-9a57-3f2b8e1d7c40';
const book = (fields: Partial<Parameters<typeof readerNotes>[0]> = {}) => ({
  id: ID,
  status: 'published' as const,
  visibility: 'public' as const,
  url: `https://flipbooks.example.com/f/${ID}`,
  versions: [{ status: 'done', is_active: true }],
  availability: 'available' as const,
  ...fields,
});

describe('what a reader URL shows, in the CLI’s words', () => {
  it('a public, readable flipbook: published, its URL, nothing more to say', () => {
    expect(stateWord(book())).toBe('published');
    expect(readerUrl(book())).toBe(`https://flipbooks.example.com/f/${ID}`);
    expect(readerNotes(book())).toEqual([]);
  });

  it('every version failed: failed, no URL, the reason and the next step', () => {
    const failed = book({
      availability: 'failed',
      versions: [{ status: 'error', is_active: false }],
    });
    expect(stateWord(failed)).toBe('failed');
    expect(readerUrl(failed)).toBeNull();
    expect(
      readerNotes(failed, 'The PDF is password-protected: it can only be opened with its password'),
    ).toEqual([
      `Failed: no version could be processed, so it has no reader URL (it answers 404). The newest: The PDF is password-protected: it can only be opened with its password. Publish a new version: flipbook version add ${ID} FILE`,
    ]);
  });

  it('not processed yet, and archived: said so, with the URL', () => {
    const waiting = book({ availability: 'unpublished', versions: [] });
    expect(stateWord(waiting)).toBe('unpublished');
    expect(readerUrl(waiting)).toBe(waiting.url);
    expect(readerNotes(waiting)).toEqual([
      'Not published yet: its URL answers 404 until a version is processed',
    ]);
    const archived = book({ availability: 'archived', status: 'archived' });
    expect(stateWord(archived)).toBe('archived');
    expect(readerNotes(archived)).toEqual([
      `Archived: its URL answers "not available" until flipbook unarchive ${ID}`,
    ]);
  });

  it('private: who its URL opens for, and how readers get in', () => {
    expect(readerNotes(book({ visibility: 'links' }))).toEqual([
      `Links only: its URL answers 404 to anyone but the workspace's members, signed in; readers need a share link (flipbook share create ${ID} LABEL)`,
    ]);
    expect(readerNotes(book({ visibility: 'workspace' }))).toEqual([
      "Workspace only: its URL opens for the workspace's members signed in to the dashboard; anyone else is asked to sign in, or gets a 404",
    ]);
    // failed and private: both said
    expect(readerNotes(book({ visibility: 'links', availability: 'failed' }))).toHaveLength(2);
  });

  it('from a server without `availability`: read from the versions it gave', () => {
    const older = (versions: { status: string; is_active: boolean }[], status = 'published') => {
      const { availability: _, ...rest } = book({ versions, status: status as 'published' });
      return availabilityOf(rest);
    };
    expect(older([{ status: 'done', is_active: true }])).toBe('available');
    expect(older([{ status: 'error', is_active: false }])).toBe('failed');
    expect(
      older([
        { status: 'error', is_active: false },
        { status: 'pending', is_active: false },
      ]),
    ).toBe('unpublished');
    expect(older([], 'archived')).toBe('archived');
  });
});
