// Polls a version's status with backoff until it is done or failed: an async generator, so a
// view can show every step and a script can simply take the last one.
import { type ApiClient, sleep, type VersionStatus } from './apiClient.ts';
import { ApiError, CliError, EXIT } from './cliErrors.ts';

export async function* waitForVersion(
  client: ApiClient,
  flipbookId: string,
  versionId: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): AsyncGenerator<VersionStatus> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = 300;
  for (;;) {
    // A server restarting meanwhile (a deploy) is waited for, two minutes at most.
    const status = await client
      .status(flipbookId, versionId, options.signal, 120_000)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 0) {
          throw new ApiError(
            0,
            `${error.message}\nProcessing goes on without us: flipbook ${flipbookId} version ${versionId}\n` +
              `Follow it: flipbook status ${flipbookId} ${versionId} --wait`,
          );
        }
        throw error;
      });
    yield status;
    if (status.status === 'done' || status.status === 'error') return;
    if (options.signal?.aborted) throw new CliError(EXIT.interrupted, 'Interrupted');
    if (Date.now() + delay > deadline) {
      throw new CliError(
        EXIT.timeout,
        `Timed out after ${options.timeoutMs / 1000} s: version ${versionId} of flipbook ` +
          `${flipbookId} is ${status.status}`,
      );
    }
    await sleep(delay, options.signal);
    if (options.signal?.aborted) throw new CliError(EXIT.interrupted, 'Interrupted');
    // Every 2 s at most: a progress bar moves, and a status costs the server a few ms.
    delay = Math.min(2000, Math.round(delay * 1.5));
  }
}
