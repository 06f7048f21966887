// A daemon for the suite it is called in (test/support/apiFixture.ts): started before the suite's
// first test, stopped after its last. The value stands for the started fixture, with `c`, a
// client of its workspace; reading it before the suite starts is an error.
import { expect } from 'vitest';
import { type ApiFixture, startApi } from './apiFixture.ts';
import { type Client, client } from './apiHelpers.ts';
import { forSuite } from './forSuite.ts';

export type UsedApi = ApiFixture & { c: Client };

const started = async (...start: Parameters<typeof startApi>): Promise<UsedApi> => {
  const fx = await startApi(...start);
  return { ...fx, c: client(fx.api, fx.key) };
};

export const useApi = (...start: Parameters<typeof startApi>): UsedApi =>
  forSuite(
    'the daemon',
    () => started(...start),
    (fx) => fx.stop(),
  );

/** As useApi, for suites that also check the daemon stops cleanly after all they did: exit 0. */
export const useCleanlyStoppedApi = (...start: Parameters<typeof startApi>): UsedApi =>
  forSuite(
    'the daemon',
    () => started(...start),
    async (fx) => {
      expect(await fx.daemon.stop()).toBe(0);
    },
  );
