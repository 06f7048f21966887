// Publishing a preview of a change to a slug (docs/ci.md, "previews") and waiting for what it
// found. The upload is every publish's (./publish.ts `sendUpload`: the file checked, retries, one
// Idempotency-Key, progress); both return the preview as `GET .../previews/{name}` answers it,
// so the CLI and the GitHub Action (packages/action) print and report the same thing.
import { apiClient, type Preview } from '../client/apiClient.ts';
import type { Connection } from '../client/config.ts';
import { ApiError, CliError, EXIT } from '../client/cliErrors.ts';
import { pollUntil } from '../client/poll.ts';
import { type Progress, sendUpload } from './publish.ts';

export type PublishPreviewOptions = {
  /** the fields of a flipbook made by this upload (a slug with none yet), as for publish */
  title?: string;
  direction?: string;
  visibility?: string;
  signal?: AbortSignal;
  progress?: Progress;
};

/** Uploads FILE as the preview NAME of SLUG (a new push replaces its version); returns it, pending. */
export const publishPreview = async (
  connection: Connection,
  file: string,
  slug: string,
  name: string,
  options: PublishPreviewOptions = {},
): Promise<Preview> => {
  const progress = options.progress ?? {};
  const fields = {
    title: options.title,
    direction: options.direction,
    visibility: options.visibility,
  };
  await sendUpload({ connection, file, signal: options.signal }, progress, (client, pdf, upload) =>
    client.previews.publish(slug, name, pdf, fields, upload),
  );
  const preview = await apiClient(connection, progress.onWait).previews.show(
    slug,
    name,
    options.signal,
  );
  progress.onStatus?.(preview);
  return preview;
};

export type WaitForPreviewOptions = {
  /** give up after this long (exit 4); default 10 minutes, as publish --wait */
  timeoutMs?: number;
  signal?: AbortSignal;
  progress?: Progress;
};

/** A preview is final once it failed, or is done and compared with the live version. */
export const previewFinal = (preview: Preview) =>
  preview.status === 'error' || (preview.status === 'done' && preview.compare !== null);

/**
 * Polls the preview (at publish --wait's pace) until it failed, or is done with its comparison;
 * returns that answer. A failed preview is returned, not thrown: the caller reports it, then
 * fails (exit 3).
 */
export const waitForPreview = async (
  connection: Connection,
  slug: string,
  name: string,
  options: WaitForPreviewOptions = {},
): Promise<Preview> => {
  const progress = options.progress ?? {};
  const timeoutMs = options.timeoutMs ?? 600_000;
  const client = apiClient(connection, progress.onWait);
  const which = `preview ${name} of ${slug}`;
  const follow = `Follow it: flipbook preview list --slug ${slug}`;
  let last: Preview | null = null;
  let comparing = false;
  const ask = () =>
    // A server restarting meanwhile (a deploy) is waited for, two minutes at most.
    client.previews.show(slug, name, options.signal, 120_000).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 0) {
        throw new ApiError(
          0,
          `${error.message}\nProcessing goes on without us: ${which}\n${follow}`,
        );
      }
      throw error;
    });
  try {
    for await (const preview of pollUntil(
      ask,
      previewFinal,
      { timeoutMs, signal: options.signal },
      (p) =>
        `Timed out after ${timeoutMs / 1000} s: ${which} is ${p.status === 'done' ? 'done but not compared yet' : p.status}`,
    )) {
      progress.onStatus?.(preview);
      // Once processed, the comparison is a moment more: said once, so a log does not look stuck.
      if (preview.status === 'done' && preview.compare === null && !comparing) {
        comparing = true;
        progress.onWait?.('comparing with the live version');
      }
      last = preview;
    }
  } catch (error) {
    // Ctrl-C stops the waiting, not the processing: say what to follow.
    if (error instanceof CliError && error.exitCode === EXIT.interrupted) {
      throw new CliError(EXIT.interrupted, `Interrupted; processing goes on: ${which}\n${follow}`);
    }
    throw error;
  }
  if (!last) throw new Error('unreachable: a poll yields at least once');
  return last;
};
