// How the publishing commands end, as exit codes scripts can rely on (docs/ci.md).
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  processingError: 3,
  timeout: 4,
  interrupted: 130,
} as const;

export class CliError extends Error {
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** The API answered with an error, or could not be reached: exit 1 with the server's text. */
export class ApiError extends CliError {
  override name = 'ApiError';
  readonly status: number;
  constructor(status: number, message: string) {
    super(EXIT.failure, message);
    this.status = status;
  }
}

/** A version whose processing failed: exit 3, with the server's reason when it gave one. */
export const processingFailed = (reason: string | undefined) =>
  new CliError(EXIT.processingError, `Processing ended in error${reason ? `: ${reason}` : ''}`);
