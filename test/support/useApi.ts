// A daemon for the suite it is called in (test/support/apiFixture.ts): started before the suite's
// first test, stopped after its last. The value stands for the started fixture, with `c`, a
// client of its workspace; reading it before the suite starts is an error.
import { afterAll, beforeAll } from 'vitest';
import { type ApiFixture, startApi } from './apiFixture.ts';
import { type Client, client } from './apiHelpers.ts';

export type UsedApi = ApiFixture & { c: Client };

export const useApi = (...start: Parameters<typeof startApi>): UsedApi => {
  let started: UsedApi | undefined;
  beforeAll(async () => {
    const fx = await startApi(...start);
    started = { ...fx, c: client(fx.api, fx.key) };
  });
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as UsedApi, {
    get: (_, key) => {
      if (!started) throw new Error("the daemon starts before the suite's first test");
      return Reflect.get(started, key);
    },
  });
};
