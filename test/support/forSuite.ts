// Something a suite shares (a daemon, an app in process, a store): started before the suite's
// first test, stopped after its last. The value returned stands for the started thing; reading it
// before the suite starts (in a describe's body, at collection) is an error that says so.
// useApi, useApp and useApiDeps are this with what they start.
import { afterAll, beforeAll } from 'vitest';

export const forSuite = <T extends object>(
  /** what starts, for the error: "the daemon" */
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<unknown>,
): T => {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started) await stop(started);
  });
  const live = (): T => {
    if (!started) throw new Error(`${what} starts before the suite's first test`);
    return started;
  };
  // Keys and descriptors too, so that `{ ...value }` copies what started.
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(live(), key),
    has: (_, key) => Reflect.has(live(), key),
    ownKeys: () => Reflect.ownKeys(live()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(live(), key),
  });
};
