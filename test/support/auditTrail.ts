// What the audit trail's suites share (test/spec/audit.spec.test.ts in process,
// test/e2e/auditCli.e2e.test.ts on a daemon): the trail as a workspace reads it over HTTP, and an
// upload that names its request and its client.
import { type Client, expectJson, form, type Json, pdf, SMALL_PDF, send } from './apiHelpers.ts';
import { waitFor } from './waitFor.ts';

/** The events processing appends after an upload, in order. */
export const PROCESSING = ['VersionProcessingStarted', 'VersionProcessed', 'VersionActivated'];

/**
 * The trail's event types but processing's progress batches (VersionPagesRendered), which come
 * only when a render is slow enough (a second: a loaded machine's three pages).
 */
export const typesBesideProgress = (events: Json[]) =>
  events.map((e) => e.type).filter((t) => t !== 'VersionPagesRendered');

/** The flipbook's trail as its workspace reads it over HTTP (one page of 100). */
export const trailOf = async (c: Client, flipbookId: string) => {
  const reply = await c.get(`/flipbooks/${flipbookId}/events?per_page=100`);
  expectJson(reply, 200);
  return reply.body.events as Json[];
};

/** The flipbook's trail once it holds the version's activation (processing's last event). */
export const trailActivated = (c: Client, flipbookId: string) =>
  waitFor('the activation', async () => {
    const all = await trailOf(c, flipbookId);
    return all.some((e) => e.type === 'VersionActivated') ? all : undefined;
  });

/** "Annual report" uploaded with API key `key`, under the request id and user agent given. */
export const uploadReport = (api: string, key: string, requestId: string, userAgent: string) =>
  send(`${api}/flipbooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId, 'user-agent': userAgent },
    body: form({ title: 'Annual report' }, pdf(SMALL_PDF, 'report.pdf')),
  });
