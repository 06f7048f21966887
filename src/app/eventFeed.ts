// The workspace's event feed (GET /api/v1/events): its public events in order, a page at a time
// after a cursor, waiting up to `wait` seconds for the next one when there is none (long polling).
// The cursor is the event's place in the audit chain (src/state/eventFeed.ts says why that
// order never skips an event that commits late).

import type { EventFeed } from '../contract/webhooks.ts';
import { publicEvent } from '../domain/publicEvents.ts';
import { feedHead, feedPage } from '../state/eventFeed.ts';
import type { Store } from '../store/store.ts';
import type { Caller } from './caller.ts';

/** How often a waiting request looks again. */
const POLL_MS = 250;

const secondsIso = (iso: unknown) =>
  typeof iso === 'string' ? `${iso.slice(0, 19)}Z` : new Date(0).toISOString().slice(0, 19) + 'Z';

export const readEventFeed = async (
  store: Store,
  caller: Caller,
  query: { after: string; limit: number; waitS: number },
  gone: () => boolean = () => false,
): Promise<EventFeed> => {
  const after = query.after === 'now' ? await feedHead(store.db, caller.workspaceId) : query.after;
  const deadline = performance.now() + query.waitS * 1000;
  for (;;) {
    const rows = await feedPage(store.db, caller.workspaceId, after, query.limit);
    if (rows.length > 0 || performance.now() >= deadline || gone()) {
      const events = rows.flatMap((row) => {
        const shown = publicEvent(row.type, row.data);
        return shown
          ? [
              {
                id: row.id,
                type: shown.type,
                at: secondsIso(row.data.occurredAt),
                data: shown.data,
              },
            ]
          : [];
      });
      return { events, next: rows.at(-1)?.seq ?? after };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};
