// A flipbook's reader URL and what it shows (./readerWords.ts), as `show` and `edit` print them:
// the URL on a line of its own (scripts take it), then any notes; for a flipbook whose every
// version failed, no URL but the reason its newest version gave (one more request, only then).
import type { ApiClient, Flipbook } from './client/apiClient.ts';
import { availabilityOf, readerNotes, readerUrl } from './readerWords.ts';

export const printReader = async (client: ApiClient, book: Flipbook) => {
  const url = readerUrl(book);
  if (url) process.stdout.write(`${url}\n`);
  const newest = book.versions[0];
  const reason =
    availabilityOf(book) === 'failed' && newest
      ? await client
          .status(book.id, newest.id)
          .then((s) => s.error_reason)
          .catch(() => undefined)
      : undefined;
  for (const note of readerNotes(book, reason)) process.stdout.write(`${note}\n`);
};
