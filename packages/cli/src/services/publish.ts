// Publishing a PDF (a new flipbook, or a new version of one), optionally waiting for processing.
// Options in, a result out; progress goes to the callbacks. No flags, no terminal, no React.
import { randomUUID } from 'node:crypto';
import { type ApiClient, apiClient, type Upload, type VersionStatus } from '../client/apiClient.ts';
import type { Connection } from '../client/config.ts';
import { ApiError, CliError, EXIT } from '../client/cliErrors.ts';
import { checkPdfFile, type PdfFile } from '../client/pdfFile.ts';
import { waitForVersion } from '../client/waitForVersion.ts';

/** What a wait reports of processing: a version's status answer, or a preview's. */
export type ProcessingStatus = Pick<
  VersionStatus,
  'status' | 'pages' | 'pages_done' | 'error_reason'
> & { step?: VersionStatus['step'] };

export type Progress = {
  onUpload?: (sent: number, total: number) => void;
  onStatus?: (status: ProcessingStatus) => void;
  onWait?: (message: string) => void;
};

export type PublishResult = {
  flipbook_id: string;
  version_id: string;
  status: VersionStatus['status'];
  pages: number;
  url: string;
  /**
   * what that URL shows now (the API's field): `available`, or `failed` / `unpublished` while it
   * answers 404 (a flipbook whose only version failed has a URL that leads nowhere yet)
   */
  availability: string;
  /** whether this version is the one readers see now */
  is_active: boolean;
  /** whether it becomes the active one when its processing is done */
  activate_on_done: boolean;
  /** only for status error: why */
  error_reason?: string;
};

export type PublishOptions = {
  connection: Connection;
  file: string;
  /** a new flipbook, or a new version of this one */
  flipbookId?: string;
  /** or: a new version of the flipbook with this slug, made with it when there is none */
  slug?: string;
  title?: string;
  /** a new flipbook's reading direction: ltr, rtl or auto (the server's default) */
  direction?: string;
  /** a new flipbook's visibility: public (the server's default), workspace or links */
  visibility?: string;
  activate?: boolean;
  wait: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
};

export const publish = async (
  options: PublishOptions,
  progress: Progress = {},
): Promise<PublishResult> => {
  const fields = {
    title: options.title,
    direction: options.direction,
    visibility: options.visibility,
  };
  const { flipbookId, versionId } = await sendUpload(
    options,
    progress,
    async (client, file, upload) => {
      if (options.flipbookId) {
        const made = await client.addVersion(
          options.flipbookId,
          file,
          options.activate ?? true,
          upload,
        );
        return { flipbookId: options.flipbookId, versionId: made.version_id };
      }
      const made = options.slug
        ? await client.publishToSlug(options.slug, file, fields, upload)
        : await client.create(file, fields, upload);
      return { flipbookId: made.flipbook_id, versionId: made.version_id };
    },
  );
  return finish(options, progress, flipbookId, versionId);
};

/**
 * One upload as every publishing command makes it (a flipbook, a version, a preview): the file
 * checked before anything is sent, progress to the callbacks, one Idempotency-Key whatever the
 * retries (the server makes it once), and an unreadable PDF exit 3.
 */
export const sendUpload = async <T>(
  options: { connection: Connection; file: string; signal?: AbortSignal },
  progress: Progress,
  send: (client: ApiClient, file: PdfFile, upload: Upload) => Promise<T>,
): Promise<T> => {
  const file = await checkPdfFile(options.file);
  const client = apiClient(options.connection, progress.onWait);
  try {
    return await uploaded(
      send(client, file, {
        progress: progress.onUpload,
        signal: options.signal,
        idempotencyKey: randomUUID(),
      }),
    );
  } finally {
    await file.cleanup?.();
  }
};

/**
 * A PDF the server cannot read is the same outcome whether pdfinfo refused it at upload or the
 * render failed later: exit 3 (docs/ci.md), not the 1 of a refused request.
 */
const uploaded = async <T>(upload: Promise<T>): Promise<T> => {
  try {
    return await upload;
  } catch (error) {
    if (error instanceof ApiError && error.status === 422 && UNREADABLE.test(error.message)) {
      throw new CliError(EXIT.processingError, `The server cannot read this PDF: ${error.message}`);
    }
    throw error;
  }
};
const UNREADABLE = /^File is not a readable PDF/;

/** Status (optionally waiting) and the reader URL of a version. */
export const finish = async (
  options: Pick<PublishOptions, 'connection' | 'wait' | 'timeoutMs' | 'signal'>,
  progress: Progress,
  flipbookId: string,
  versionId: string,
): Promise<PublishResult> => {
  const client = apiClient(options.connection, progress.onWait);
  let last: VersionStatus | null = null;
  if (options.wait) {
    try {
      for await (const status of waitForVersion(client, flipbookId, versionId, options)) {
        progress.onStatus?.(status);
        last = status;
      }
    } catch (error) {
      // Ctrl-C stops the waiting, not the processing: say what to follow.
      if (error instanceof CliError && error.exitCode === EXIT.interrupted) {
        throw new CliError(
          EXIT.interrupted,
          `Interrupted; processing goes on: flipbook ${flipbookId} version ${versionId}\n` +
            `Follow it: flipbook status ${flipbookId} ${versionId} --wait`,
        );
      }
      throw error;
    }
  } else {
    last = await client.status(flipbookId, versionId);
    progress.onStatus?.(last);
  }
  const book = await client.show(flipbookId);
  const version = (book.versions as { id: string; activate_on_done?: boolean }[]).find(
    (v) => v.id === versionId,
  );
  return {
    flipbook_id: flipbookId,
    version_id: versionId,
    status: last?.status ?? 'pending',
    pages: last?.pages ?? 0,
    url: String(book.url),
    availability: String(book.availability ?? 'available'),
    is_active: last?.is_active ?? false,
    activate_on_done: version?.activate_on_done ?? false,
    ...(last?.error_reason ? { error_reason: last.error_reason } : {}),
  };
};
