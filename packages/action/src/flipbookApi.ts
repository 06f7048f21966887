// The few flipbook API calls the action makes, in one module: publish a preview, read it, wait
// for it (processed and compared), promote it, delete it, publish to the slug. Over the client's
// own modules (apiClient: retries, 429s, the key's words; multipartBody; the publish service), so
// the action and `flipbook publish` send the same requests. When the CLI's preview service
// (packages/cli/src/services/preview.ts) lands, this is the one place to swap for it.
import { randomUUID } from 'node:crypto';
import type { Preview, PreviewCreated, Promoted } from '../../../src/contract/previews.ts';
import { apiClient, sleep } from '../../cli/src/client/apiClient.ts';
import { CliError, EXIT } from '../../cli/src/client/cliErrors.ts';
import type { Connection } from '../../cli/src/client/config.ts';
import { multipartBody } from '../../cli/src/client/multipartBody.ts';
import { checkPdfFile } from '../../cli/src/client/pdfFile.ts';
import { publish } from '../../cli/src/services/publish.ts';

export type { Preview } from '../../../src/contract/previews.ts';

/** A preview is finished for the action when it failed, or is done and compared. */
export const previewFinished = (preview: Preview) =>
  preview.status === 'error' || (preview.status === 'done' && preview.compare !== null);

export const flipbookApi = (connection: Connection, log: (message: string) => void) => {
  const client = apiClient(connection, log);
  const previewPath = (slug: string, name: string) =>
    `/flipbooks/by-slug/${encodeURIComponent(slug)}/previews/${encodeURIComponent(name)}`;

  const preview = (slug: string, name: string) =>
    // A server restarting meanwhile (a deploy) is waited for, two minutes at most.
    client.call<Preview>(previewPath(slug, name), { patienceMs: 120_000 });

  return {
    publishPreview: async (slug: string, name: string, file: string) => {
      const pdf = await checkPdfFile(file);
      return client.call<PreviewCreated>(previewPath(slug, name), {
        method: 'POST',
        body: () => multipartBody(pdf, {}, () => {}),
        // One key for this upload, whatever the retries: the server makes it once.
        idempotencyKey: randomUUID(),
      });
    },

    preview,

    /** Polls with backoff (every 2 s at most) until `previewFinished`; each answer to `onStatus`. */
    waitForPreview: async (
      slug: string,
      name: string,
      options: { timeoutMs: number; onStatus?: (preview: Preview) => void },
    ) => {
      const deadline = Date.now() + options.timeoutMs;
      let delay = 300;
      for (;;) {
        const now = await preview(slug, name);
        options.onStatus?.(now);
        if (previewFinished(now)) return now;
        if (Date.now() + delay > deadline) {
          throw new CliError(
            EXIT.timeout,
            `Timed out after ${options.timeoutMs / 1000} s: the preview ${name} of ${slug} is ${now.status}${now.status === 'done' ? ' and not compared yet' : ''}`,
          );
        }
        await sleep(delay);
        delay = Math.min(2000, Math.round(delay * 1.5));
      }
    },

    promote: (slug: string, name: string) =>
      client.call<Promoted>(`${previewPath(slug, name)}/promote`, { method: 'POST' }),

    deletePreview: async (slug: string, name: string) => {
      await client.call<unknown>(previewPath(slug, name), { method: 'DELETE' });
    },

    /** The reader address of a flipbook (what a promotion made live). */
    readerUrl: async (flipbookId: string) => String((await client.show(flipbookId)).url),

    /** As `flipbook publish FILE --slug S --wait` does it: a new active version of the slug. */
    publishToSlug: (slug: string, file: string, timeoutMs: number) =>
      publish({ connection, file, slug, wait: true, timeoutMs }, { onWait: log }),
  };
};

export type FlipbookApi = ReturnType<typeof flipbookApi>;
