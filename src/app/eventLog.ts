// The audit trail of one flipbook: its events in order, as recorded.

import { NotFound } from '../domain/errors.ts';
import type { FlipbookEvent } from '../domain/flipbook/flipbook.ts';
import { flipbookStream } from '../domain/flipbook/flipbook.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Store } from '../store/store.ts';

export type LoggedEvent = {
  position: number;
  at: string;
  type: string;
  data: Record<string, unknown>;
};

export const flipbookEvents = async (store: Store, flipbookId: string): Promise<LoggedEvent[]> => {
  if (!isUuid(flipbookId)) throw new NotFound(`No flipbook with id ${flipbookId}`);
  const { events } = await store.events.readStream<FlipbookEvent>(flipbookStream(flipbookId));
  if (events.length === 0) throw new NotFound(`No flipbook with id ${flipbookId}`);
  return events.map((event) => ({
    position: Number(event.metadata.streamPosition),
    at: event.data.occurredAt,
    type: event.type,
    data: event.data as unknown as Record<string, unknown>,
  }));
};
