// Whether a flipbook's readers may download its original PDF (admin command).
import { NotFound } from '../domain/errors.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Store } from '../store/store.ts';
import { runFlipbookCommand } from './commands.ts';
import type { EventMetadata } from './eventContext.ts';

export const setDownload = async (
  store: Store,
  flipbookId: string,
  allowed: boolean,
  metadata: EventMetadata,
  now: Date,
) => {
  if (!isUuid(flipbookId)) throw new NotFound(`No flipbook with id ${flipbookId}`);
  await runFlipbookCommand(
    store,
    flipbookId.toLowerCase(),
    { type: 'SetDownload', data: { allowed, now } },
    metadata,
  );
  return { id: flipbookId.toLowerCase(), download: allowed };
};
