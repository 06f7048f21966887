// Errors carry their HTTP status so one error handler can answer every failure the same way.
// Business rules are 422 (the spec's "business logic error"), not Emmett's default 403.

export class AppError extends Error {
  readonly status: number;
  /** extra response headers, e.g. WWW-Authenticate on a 401 */
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

/** An error of one status, named for what it means (its name is what the logs show). */
const failure = (name: string, status: number) =>
  class extends AppError {
    override name = name;
    constructor(message: string) {
      super(status, message);
    }
  };

/**
 * An error that always says the same: its status, its words and its headers (a retry hint, a
 * challenge). `class WrongCode extends refusal('WrongCode', 401, '...') {}`
 */
export const refusal = (
  name: string,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) =>
  class extends AppError {
    override name = name;
    constructor() {
      super(status, message, { ...headers }); // each its own: an answer may add to them
    }
  };

/** A rule of the domain refused the command. */
export class RuleBroken extends failure('RuleBroken', 422) {}

/** The command names something that does not exist (or, for isolation, is not yours). */
export class NotFound extends failure('NotFound', 404) {}

/** The caller may not do this (a member managing people, a form from another site). */
export class Forbidden extends failure('Forbidden', 403) {}

/** The command collides with something that already exists. */
export class Conflict extends failure('Conflict', 409) {}

/** The input itself is malformed. */
export class InvalidInput extends failure('InvalidInput', 400) {}

/**
 * The server's disk (or the daemon user's quota) is full. Not the client's fault and not
 * permanent: 507 with a retry hint (a client such as `flipbook publish` asks again after it, as
 * after a 503), and the connection closes so a big upload is not read on into the void.
 */
export class InsufficientStorage extends AppError {
  override name = 'InsufficientStorage';
  constructor(message = 'The server is out of storage space; try again later') {
    super(507, message, { 'Retry-After': '30', Connection: 'close' });
  }
}

/**
 * The blob store (an S3-compatible bucket) did not answer, refused us or failed. Not the client's
 * fault and not permanent: 503 with a retry hint, and the connection closes so a big upload is
 * not read on into the void. The cause is kept for the log, never shown.
 */
export class BlobStoreUnavailable extends AppError {
  override name = 'BlobStoreUnavailable';
  override readonly cause: unknown;
  readonly operation: string;
  constructor(operation: string, cause: unknown) {
    super(503, 'The file store is unavailable; try again later', {
      'Retry-After': '5',
      Connection: 'close',
    });
    this.cause = cause;
    this.operation = operation;
  }

  /** what the store said, for a person (logs, a command's message): its error name and words */
  get detail(): string {
    const e = this.cause as {
      name?: string;
      message?: string;
      code?: string;
      $metadata?: { httpStatusCode?: number };
    };
    const status = e?.$metadata?.httpStatusCode;
    const name = e?.code ?? e?.name ?? 'Error';
    return `${name}${status ? ` (HTTP ${status})` : ''}: ${String(e?.message ?? this.cause).slice(0, 300)}`;
  }
}

/**
 * The machine failed us, not the document and not the request: its temporary disk (TMPDIR) is
 * full or failing, so a tool could not keep its output, or its scratch files could not be made.
 * A tool that exits 0 having printed nothing, because what it printed could not be kept, says
 * nothing about the PDF. Not permanent: a 503 with a retry hint for a request, a retry later for
 * processing; what failed and where are kept for the log, not shown to clients.
 */
export class MachineFailure extends AppError {
  override name = 'MachineFailure';
  /** what failed, for the log: `pdfinfo could not keep its output: no space left in TMPDIR (/tmp)` */
  readonly detail: string;
  /** the temporary directory that failed */
  readonly directory: string;
  constructor(detail: string, directory: string) {
    super(
      503,
      /no space left|quota/i.test(detail)
        ? "The server's temporary disk is full; try again later"
        : "The server's temporary disk is failing; try again later",
      { 'Retry-After': '30' },
    );
    this.detail = detail;
    this.directory = directory;
  }
}

/**
 * ENOSPC (disk full), EDQUOT (quota exceeded) and PostgreSQL's 53100 `disk_full` (the database's
 * disk) are the same thing to a client.
 */
export const isOutOfSpace = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === '53100';
};
