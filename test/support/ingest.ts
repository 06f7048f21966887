// An analytics ingest (src/app/analytics/ingest.ts) as a daemon builds one: today's salt from the
// store, reading tokens checked by the signer given, for a service with no host name of its own
// and no country lookup unless told.
import { createIngest, type IngestDeps } from '../../src/app/analytics/ingest.ts';
import type { readingTokensSignedWith } from '../../src/app/analytics/readingTokens.ts';
import { dailySalts } from '../../src/app/analytics/salts.ts';
import type { Clock } from '../../src/app/clock.ts';
import type { Store } from '../../src/store/store.ts';

export const ingestOf = (
  store: Store,
  clock: Clock,
  tokens: ReturnType<typeof readingTokensSignedWith>,
  more: Pick<IngestDeps, 'countryOf'> = {},
) =>
  createIngest({
    store,
    clock,
    salt: dailySalts(store, clock).today,
    token: tokens.read,
    ownHosts: () => [],
    ...more,
  });
