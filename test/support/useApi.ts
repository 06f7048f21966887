// A daemon for the suite it is called in (test/support/apiFixture.ts): started before the suite's
// first test, stopped after its last. The value stands for the started fixture, with `c`, a
// client of its workspace; reading it before the suite starts is an error.
import { type ApiFixture, startApi } from './apiFixture.ts';
import { type Client, client } from './apiHelpers.ts';
import { forSuite } from './forSuite.ts';

export type UsedApi = ApiFixture & { c: Client };

export const useApi = (...start: Parameters<typeof startApi>): UsedApi =>
  forSuite(
    'the daemon',
    async () => {
      const fx = await startApi(...start);
      return { ...fx, c: client(fx.api, fx.key) };
    },
    (fx) => fx.stop(),
  );
