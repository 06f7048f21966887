// Why a document could not be turned into pages, in words a person can act on.
import { tmpdir } from 'node:os';
import { BlobStoreUnavailable, MachineFailure } from '../domain/errors.ts';
import { ToolFailure } from './poppler.ts';

/** A document that cannot be turned into pages, with a reason a person can read. */
export class RenderFailure extends Error {
  override name = 'RenderFailure';
}

/** More pages than this service renders (--max-pages): how many, for the plan's words first. */
export class TooManyPages extends RenderFailure {
  override name = 'TooManyPages';
  readonly pages: number;
  constructor(pages: number, max: number) {
    super(`The document has ${pages} pages; the most this service renders is ${max}`);
    this.pages = pages;
  }
}

/** poppler's own words when an allocation failed (it then exits 0 with a 1x1 image, or aborts). */
const OUT_OF_MEMORY = /Out of memory|Bogus memory allocation|std::bad_alloc/i;

export type FailureKind = 'password' | 'memory' | 'cpu' | 'crash' | 'timeout' | 'other';

/**
 * How a tool failed. A ToolFailure says how it ended: the signal it died of (one we did not send:
 * ours are aborts) tells a crash from the CPU cap (SIGXCPU, from `ulimit -t`) and from the memory
 * cap (poppler prints "Out of memory" and aborts, or exits 0 with a 1x1 image, which the caller
 * checks; the kernel's out-of-memory killer sends SIGKILL).
 */
export const classify = (error: unknown): FailureKind => {
  const message = String((error as Error)?.message ?? error);
  const signal = error instanceof ToolFailure ? error.signal : null;
  if (/Incorrect password/i.test(message)) return 'password';
  if (signal === 'SIGXCPU') return 'cpu';
  if (signal === 'SIGKILL' || (signal === 'SIGABRT' && OUT_OF_MEMORY.test(message))) {
    return 'memory';
  }
  // Any other signal we did not send (SIGSEGV, SIGBUS, SIGABRT without words...) is a crash.
  if (signal) return 'crash';
  if (OUT_OF_MEMORY.test(message)) return 'memory';
  const name = (error as Error)?.name;
  if (name === 'AbortError' || name === 'TimeoutError') return 'timeout';
  return 'other';
};

export const MEMORY_LIMIT = 'Rendering needed more memory than allowed';
export const CPU_LIMIT = 'Rendering used more CPU time than allowed';

/** Turns a tool's failure into a reason a person can act on. */
export const explain = (error: unknown, doing: 'read' | 'render') => {
  const reading = doing === 'read';
  switch (classify(error)) {
    case 'password':
      return new RenderFailure(
        'The PDF is password-protected: it can only be opened with its password',
      );
    case 'memory':
      return new RenderFailure(
        reading ? 'Reading the PDF needed more memory than allowed' : MEMORY_LIMIT,
      );
    case 'cpu':
      return new RenderFailure(
        reading ? 'Reading the PDF used more CPU time than allowed' : CPU_LIMIT,
      );
    case 'crash':
      return new RenderFailure(
        `The ${reading ? 'PDF reader' : 'renderer'} crashed on this PDF; the file is probably damaged`,
      );
    case 'timeout':
      return new RenderFailure(
        reading ? 'Reading the PDF took too long' : 'Rendering the PDF took too long',
      );
    case 'other':
      return new RenderFailure(
        `The PDF could not be ${reading ? 'read' : 'rendered'}${withReason(lastError(error))}`,
      );
  }
};

/** poppler's most telling line, without its "Syntax Error (123):" prefix. */
export const lastError = (error: unknown) => {
  const said =
    error instanceof ToolFailure ? error.stderr : String((error as Error)?.message ?? error);
  const lines = said.split('\n').filter((l) => /error/i.test(l));
  return (lines.at(-1) ?? said.split('\n')[0] ?? '')
    .replace(/^.*?(Syntax|Command Line|Internal) Error( \(\d+\))?:\s*/i, '')
    .trim()
    .slice(0, 200);
};

const withReason = (reason: string) => (reason ? `: ${withoutPaths(reason)}` : '');

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
  // TMPDIR full or failing: a tool's output lost, its scratch files not made.
  if (error instanceof MachineFailure) return new StorageFailure(error.detail);
  if (error instanceof BlobStoreUnavailable) {
    return new StorageFailure(`The file store failed (${error.operation}): ${error.detail}`);
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const message = String((error as Error | null)?.message ?? error);
  // Any errno (ENOSPC, EIO, ENOENT, EACCES, EMFILE...) comes from our own file operations on
  // the render's output: the document cannot cause one, so it must not be blamed for it.
  if ((code && /^E[A-Z]+$/.test(code)) || STORAGE_WORDS.test(message)) {
    return new StorageFailure(`Writing the pages failed: ${message.split('\n')[0]?.slice(0, 300)}`);
  }
  return null;
};

/** poppler's words for a page file it could not write: `Output file write error --- out of disk space?` */
const DISK_FULL_WORDS = /out of disk space|No space left on device|Disk quota exceeded/i;

/**
 * The MachineFailure behind a failure of work done in TMPDIR (a tile's or a later rendition's
 * scratch folder), or null when it is about something else: the wrapper's own (a tool's output
 * could not be kept), one of our file operations on a path in TMPDIR, or pdftoppm unable to write
 * its page file there. Only for callers whose tools write nowhere else.
 */
export const machineProblem = (error: unknown): MachineFailure | null => {
  if (error instanceof MachineFailure) return error;
  const tmp = tmpdir();
  const full = (what: string, cause: string) =>
    new MachineFailure(`${what}: ${cause} in TMPDIR (${tmp})`, tmp);
  const e = error as NodeJS.ErrnoException | null;
  if (e?.code && /^E[A-Z]+$/.test(e.code) && e.path?.startsWith(`${tmp}/`)) {
    const cause = e.code === 'ENOSPC' || e.code === 'EDQUOT' ? 'no space left' : e.code;
    return full(`${e.syscall ?? 'a file operation'} failed`, cause);
  }
  if (error instanceof ToolFailure && DISK_FULL_WORDS.test(error.stderr)) {
    return full(`${error.tool} could not write its output`, 'no space left');
  }
  return null;
};

/** A message without the server's file paths: reasons are shown to API clients. */
export const withoutPaths = (message: string) =>
  message.replace(/(?:\/[^\s'"/]+){2,}\/?/g, '<file>');
