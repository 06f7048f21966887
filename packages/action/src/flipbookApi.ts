// The few flipbook API calls the action makes, in one module: publish a preview and wait for it
// (processed and compared), promote it, delete it, publish to the slug. Each is the CLI's own
// (packages/cli/src/services: the same upload, retries, Idempotency-Key, pace and words), so the
// action and `flipbook publish --preview` send the same requests and wait the same way.
import { apiClient } from '../../cli/src/client/apiClient.ts';
import type { Connection } from '../../cli/src/client/config.ts';
import { publishPreview, waitForPreview } from '../../cli/src/services/preview.ts';
import { type ProcessingStatus, publish } from '../../cli/src/services/publish.ts';

export type { Preview } from '../../../src/contract/previews.ts';

export const flipbookApi = (connection: Connection, log: (message: string) => void) => {
  const client = apiClient(connection, log);
  return {
    publishPreview: (slug: string, name: string, file: string) =>
      publishPreview(connection, file, slug, name, { progress: { onWait: log } }),

    /** Polls until the preview failed, or is done and compared; each answer to `onStatus`. */
    waitForPreview: (
      slug: string,
      name: string,
      options: { timeoutMs: number; onStatus?: (status: ProcessingStatus) => void },
    ) =>
      waitForPreview(connection, slug, name, {
        timeoutMs: options.timeoutMs,
        progress: { onWait: log, ...(options.onStatus ? { onStatus: options.onStatus } : {}) },
      }),

    promote: (slug: string, name: string) => client.previews.promote(slug, name),

    deletePreview: async (slug: string, name: string) => {
      await client.previews.remove(slug, name);
    },

    /** The reader address of a flipbook (what a promotion made live). */
    readerUrl: async (flipbookId: string) => String((await client.show(flipbookId)).url),

    /** As `flipbook publish FILE --slug S --wait` does it: a new active version of the slug. */
    publishToSlug: (slug: string, file: string, timeoutMs: number) =>
      publish({ connection, file, slug, wait: true, timeoutMs }, { onWait: log }),
  };
};

export type FlipbookApi = ReturnType<typeof flipbookApi>;
