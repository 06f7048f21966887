// Polls a version's status until it is done or failed (./poll.ts: the pace, the timeout, Ctrl-C).
import type { ApiClient, VersionStatus } from './apiClient.ts';
import { ApiError } from './cliErrors.ts';
import { type PollOptions, pollUntil } from './poll.ts';

export const waitForVersion = (
  client: ApiClient,
  flipbookId: string,
  versionId: string,
  options: PollOptions,
): AsyncGenerator<VersionStatus> =>
  pollUntil(
    () =>
      // A server restarting meanwhile (a deploy) is waited for, two minutes at most.
      client.status(flipbookId, versionId, options.signal, 120_000).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 0) {
          throw new ApiError(
            0,
            `${error.message}\nProcessing goes on without us: flipbook ${flipbookId} version ${versionId}\n` +
              `Follow it: flipbook status ${flipbookId} ${versionId} --wait`,
          );
        }
        throw error;
      }),
    (status) => status.status === 'done' || status.status === 'error',
    options,
    (status) =>
      `Timed out after ${options.timeoutMs / 1000} s: version ${versionId} of flipbook ` +
      `${flipbookId} is ${status.status}`,
  );
