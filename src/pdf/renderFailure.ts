// Why a document could not be turned into pages, in words a person can act on.

/** A document that cannot be turned into pages, with a reason a person can read. */
export class RenderFailure extends Error {
  override name = 'RenderFailure';
}

/** Turns poppler's complaint into a reason a person can act on. */
export const explain = (error: unknown, doing: 'read' | 'render') => {
  const message = String((error as Error)?.message ?? error);
  if (/Incorrect password/i.test(message)) {
    return new RenderFailure(
      'The PDF is password-protected: it can only be opened with its password',
    );
  }
  if (/SIGSEGV|SIGBUS|SIGABRT|signal/i.test(message) || (error as { signal?: string })?.signal) {
    return new RenderFailure('The renderer crashed on this PDF; the file is probably damaged');
  }
  if (/SIGXCPU|CPU time/i.test(message)) {
    return new RenderFailure('Rendering used more CPU time than allowed');
  }
  if (/memory|Bogus memory allocation|std::bad_alloc/i.test(message)) {
    return new RenderFailure('Rendering needed more memory than allowed');
  }
  if ((error as Error)?.name === 'AbortError' || (error as Error)?.name === 'TimeoutError') {
    return new RenderFailure(`Reading the PDF took too long`);
  }
  const lines = message.split('\n').filter((l) => /error/i.test(l));
  const reason = (lines.at(-1) ?? message.split('\n')[0] ?? '')
    .replace(/^.*?(Syntax|Command Line|Internal) Error( \(\d+\))?:\s*/i, '')
    .trim()
    .slice(0, 200);
  return new RenderFailure(
    `The PDF could not be ${doing === 'read' ? 'read' : 'rendered'}${reason ? `: ${withoutPaths(reason)}` : ''}`,
  );
};

/**
 * What poppler says when the objects of a page themselves are broken, as opposed to the damage it
 * routinely repairs (a cross-reference table it has to rebuild, a wrong stream length): an object
 * cut off mid-way, a dictionary that is not one, a page tree node of the wrong type, a stream in
 * a compression it cannot decode (often a wrong decryption key). The patterns are poppler 22.12's
 * wording: the corpus test of the bad_segv and odd_zerosize files fails if an upgrade rewords them.
 */
const BROKEN_OBJECTS = [
  /End of file inside (?:array|dictionary)/,
  /Dictionary key must be a name object/,
  /Kids object \(page \d+\) is wrong type/,
  /Unknown compression method in flate stream/,
];

/**
 * For a page poppler reports as 0x0: the reason the file is damaged, if poppler's complaints
 * while trying it say its objects are broken; null if the page merely has no size, which we show
 * as a blank page.
 */
export const brokenObjects = (popplerMessage: string): RenderFailure | null => {
  const found = BROKEN_OBJECTS.map((pattern) => pattern.exec(popplerMessage)?.[0]).find(Boolean);
  return found ? new RenderFailure(`The PDF is damaged: ${found.toLowerCase()}`) : null;
};

/**
 * The disk (not the document) failed: full, over quota, read-only or broken. Such a render is
 * tried again later; blaming the PDF would fail a good document for good.
 */
export class StorageFailure extends Error {
  override name = 'StorageFailure';
}

/**
 * poppler's and libvips' words for a file system that failed us (they report no errno of their
 * own): full, over quota, read-only, a file or folder gone from under the render, out of handles.
 */
const STORAGE_WORDS =
  /No space left on device|out of disk space|Disk quota exceeded|Read-only file system|Input file is missing|No such file or directory|Too many open files|Permission denied/i;

/** The StorageFailure this error really is, or null when it is about something else. */
export const storageProblem = (error: unknown): StorageFailure | null => {
  if (error instanceof StorageFailure) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const message = String((error as Error | null)?.message ?? error);
  // Any errno (ENOSPC, EIO, ENOENT, EACCES, EMFILE...) comes from our own file operations on
  // the render's output: the document cannot cause one, so it must not be blamed for it.
  if ((code && /^E[A-Z]+$/.test(code)) || STORAGE_WORDS.test(message)) {
    return new StorageFailure(`Writing the pages failed: ${message.split('\n')[0]?.slice(0, 300)}`);
  }
  return null;
};

/** A message without the server's file paths: reasons are shown to API clients. */
export const withoutPaths = (message: string) =>
  message.replace(/(?:\/[^\s'"/]+){2,}\/?/g, '<file>');
