// Watching a version's processing from outside, through its status answers: the statuses it went
// through (forward only: pending → processing → done), and its events picked out of a flipbook's.
// For the processing tests in process (test/spec) and across processes (test/e2e).
import { expect } from 'vitest';
import { type Client, expectJson, type Json } from './apiHelpers.ts';
import { waitFor } from './waitFor.ts';

const ORDER = ['pending', 'processing', 'done'];

export type Watched = { final: Json; seen: string[] };

/** Polls a version's status until it is `done` or `error`, recording each distinct status seen. */
export const watchOutcome = async (
  c: Client,
  flipbookId: string,
  versionId: string,
  timeoutMs = 60_000,
): Promise<Watched> => {
  const seen: string[] = [];
  const final = await waitFor(
    `version ${versionId} done or failed`,
    async () => {
      const reply = await c.status(flipbookId, versionId);
      // (a 503 is the service's answer while a hostile render starves the machine: ask again)
      if (reply.status === 503) return undefined;
      expectJson(reply, 200);
      const status = reply.body.status as string;
      if (seen.at(-1) !== status) seen.push(status);
      return status === 'done' || status === 'error' ? (reply.body as Json) : undefined;
    },
    timeoutMs,
    100,
  );
  return { final, seen };
};

/** Polls until the version's status is `wanted`; fails if it gets past it. */
export const waitForStatus = (
  c: Client,
  flipbookId: string,
  versionId: string,
  wanted: string,
  timeoutMs = 30_000,
) =>
  waitFor(
    `version ${versionId} ${wanted}`,
    async () => {
      const reply = await c.status(flipbookId, versionId);
      expectJson(reply, 200);
      if (reply.body.status === wanted) return true;
      expect(ORDER.indexOf(reply.body.status), `status ${reply.body.status}`).toBeLessThan(
        ORDER.indexOf(wanted),
      );
      return undefined;
    },
    timeoutMs,
    25,
  );

/** Statuses must move forward only: pending → processing → done. */
export const expectForwardOnly = (seen: string[]) => {
  const indexes = seen.map((s) => ORDER.indexOf(s));
  expect(indexes.every((i) => i >= 0)).toBe(true);
  expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
};

/** The events of one type about one version. */
export const ofVersion = <E extends { type: string; data: Json }>(
  events: E[],
  versionId: string,
  type: string,
) => events.filter((e) => e.type === type && e.data.versionId === versionId);
