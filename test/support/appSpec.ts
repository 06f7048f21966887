// The in-process specification harness, in the spirit of Emmett's ApiSpecification: the whole HTTP
// app (src/composeApp.ts) on a real PostgreSQL (a fresh database on the run's server, or the
// embedded one) and a blob folder or bucket, with a clock the test moves, and no process and no
// port. Given events (use-case calls, `createInStore`...), when a request (`send`, `client`, or
// any helper that goes through `appFetch`), then status, headers, body and the new events
// (`newEvents`).
//
//   const app = await startApp();
//   const reply = await client(app.api, app.key).create(pdf(SMALL_PDF));
//   expect(reply.status).toBe(201);
//   expect((await app.newEvents()).map((e) => e.type)).toEqual(['FlipbookCreated']);
//
// The app's URLs (`app.base`, `app.api`, the URLs its answers carry) are on an origin of its own,
// http://app-N.test, answered in process (test/support/inProcess.ts). What only a process shows
// (signals, kills, restarts, a browser, the CLI as users run it) stays in test/e2e.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import { issueApiKey } from '../../src/app/apiKeys.ts';
import type { Clock } from '../../src/app/clock.ts';
import { installationSecret } from '../../src/app/readerAccess.ts';
import { changePlan, createWorkspace } from '../../src/app/workspaces.ts';
import type { BlobStore } from '../../src/blobs/blobStore.ts';
import { openBlobStore } from '../../src/blobs/openBlobStore.ts';
import { type AppSettings, composeApp } from '../../src/composeApp.ts';
import { flipbookStream } from '../../src/domain/flipbook/flipbook.ts';
import { logger } from '../../src/log.ts';
import type { RenderOptions } from '../../src/pdf/renderPdf.ts';
import { readiness } from '../../src/readiness.ts';
import type { Store } from '../../src/store/store.ts';
import { renderOptionsFor } from '../../src/worker/renderSettings.ts';
import { startWorkers, workerOptions } from '../../src/worker/workerPool.ts';
import { type Client, client } from './apiHelpers.ts';
import { type BlobPlace, placeOf } from './blobPlace.ts';
import { dataRootOf } from './dataRoot.ts';
import { forSuite } from './forSuite.ts';
import { registerApp } from './inProcess.ts';
import { TEST_METADATA } from './metadata.ts';
import { S3_ENV } from './s3Env.ts';
import { freshBucket } from './s3Server.ts';
import { openTestStore, type StoreKind } from './stores.ts';

/** The time the app decides by: the machine's, moved by the test (never waited for). */
export type TestClock = Clock & {
  /** moves the clock forward (or back, negative) */
  advance: (ms: number) => void;
  /** stops the clock at `at` (it stays there until moved) */
  freeze: (at?: Date) => void;
};

export const testClock = (): TestClock => {
  let offsetMs = 0;
  let frozenMs: number | null = null;
  return {
    now: () => new Date(frozenMs ?? Date.now() + offsetMs),
    advance: (ms) => {
      if (frozenMs === null) offsetMs += ms;
      else frozenMs += ms;
    },
    freeze: (at) => {
      frozenMs = at ? at.getTime() : Date.now() + offsetMs;
    },
  };
};

/** An event as stored, for a test's "then". */
export type StoredEvent = {
  type: string;
  stream: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
};

export type AppUnderTest = {
  /** http://app-N.test: the app's origin, answered in process */
  base: string;
  /** the API root, `${base}/api/v1` */
  api: string;
  /** a team workspace's ("acme") API key, and the workspace */
  key: string;
  workspaceId: string;
  store: Store;
  blobs: BlobStore;
  /** where the blobs are, for tests that look: a directory, or a bucket on the test S3 server */
  blobPlace: BlobPlace;
  clock: TestClock;
  /** another workspace on the same store, and a key for it */
  newWorkspace: (
    name: string,
    plan?: 'team' | 'free',
  ) => Promise<{ key: string; workspaceId: string }>;
  /** events appended since the last call (or since the app was ready), oldest first */
  newEvents: () => Promise<StoredEvent[]>;
  /** a flipbook's events, oldest first (what `flipbook events ID` prints) */
  eventsOf: (flipbookId: string) => Promise<StoredEvent[]>;
  /** writes the reading figures counted so far (the daemon does it every half second) */
  flushFigures: () => Promise<void>;
  stop: () => Promise<void>;
};

let apps = 0;

export type AppOptions = Partial<Omit<AppSettings, 'publicUrl'>> & {
  /** the database: a fresh one on the run's PostgreSQL server (default), or an embedded one */
  store?: StoreKind;
  /** blobs in a folder (default) or a fresh bucket on the run's S3 server */
  blobs?: 'dir' | 's3';
  /** processing lanes in this process, as `serve --workers N` (none by default: versions stay
   * where the test puts them) */
  workers?: number;
  /** as if serve had --smtp-url (no sender runs: a test starts src/mail/sender.ts itself) */
  mailConfigured?: boolean;
  /** the renderer's limits, lower than the defaults where a test waits for one to pass */
  renderLimits?: Partial<Pick<RenderOptions, 'pageTimeoutMs' | 'documentTimeoutMs' | 'maxPages'>>;
};

export const startApp = async (options: AppOptions = {}): Promise<AppUnderTest> => {
  const {
    store: kind = 'postgres',
    blobs: blobKind = 'dir',
    workers = 0,
    mailConfigured = false,
    renderLimits = {},
    ...settings
  } = options;
  const store = await openTestStore(kind);
  // (its blob folder with the run's stores: on memory when it can be, see dataRoot.ts)
  const folder = await mkdtemp(join(dataRootOf(inject('runId')), 'app-'));
  Object.assign(process.env, S3_ENV);
  const bucket = blobKind === 's3' ? await freshBucket(inject('s3Endpoint')) : null;
  const blobArgs = bucket ? bucket.args : ['--blob-dir', join(folder, 'blobs')];
  const blobs = bucket
    ? await openBlobStore({
        blobUrl: `s3://${bucket.bucket}`,
        s3Endpoint: inject('s3Endpoint'),
        s3PathStyle: true,
      })
    : await openBlobStore({ blobDir: join(folder, 'blobs') });
  const clock = testClock();
  const base = `http://app-${++apps}.test`;
  const render = { ...renderOptionsFor(1), ...renderLimits };
  const app = composeApp({
    store,
    blobs,
    clock,
    log: logger,
    render,
    secret: await installationSecret(store),
    health: {
      notReady: readiness(store, blobs),
      clockOffsetMs: () => 0,
    },
    mail: { configured: mailConfigured },
    settings: {
      publicUrl: () => base,
      rateLimit: 0,
      trustProxy: false,
      recordClientInfo: true,
      webhookAllowPrivate: false,
      contactEmail: null,
      keyUsageIntervalMs: 0,
      ...settings,
    },
  });
  const unregister = registerApp(base, app.http.request);
  const pool =
    workers > 0
      ? startWorkers({ store, blobs, log: logger, render, clock }, workerOptions(workers))
      : null;

  const newWorkspace = async (name: string, plan: 'team' | 'free' = 'team') => {
    const created = await createWorkspace(
      store,
      { name, plan: 'team' },
      TEST_METADATA,
      clock.now(),
    );
    const issued = await issueApiKey(store, { workspace: name }, TEST_METADATA, clock.now());
    if (plan === 'free') await changePlan(store, { name, plan }, TEST_METADATA, clock.now());
    return { key: issued.key, workspaceId: created.id };
  };
  const first = await newWorkspace('acme');

  let seen = await lastPosition(store);
  return {
    base,
    api: `${base}/api/v1`,
    key: first.key,
    workspaceId: first.workspaceId,
    store,
    blobs,
    blobPlace: placeOf(blobArgs),
    clock,
    newWorkspace,
    newEvents: async () => {
      const { rows } = await store.pool.query<{
        position: string;
        type: string;
        stream: string;
        data: Record<string, unknown>;
        metadata: Record<string, unknown>;
      }>(
        `SELECT global_position AS position, message_type AS type, stream_id AS stream,
                message_data AS data, message_metadata AS metadata
           FROM emt_messages WHERE global_position > $1 ORDER BY global_position`,
        [seen],
      );
      seen = rows.at(-1)?.position ?? seen;
      return rows.map(({ position: _, ...event }) => event);
    },
    flushFigures: () => app.analytics.flush(),
    eventsOf: async (flipbookId) => {
      const { rows } = await store.pool.query<StoredEvent>(
        `SELECT message_type AS type, stream_id AS stream, message_data AS data,
                message_metadata AS metadata
           FROM emt_messages WHERE stream_id = $1 ORDER BY global_position`,
        [flipbookStream(flipbookId)],
      );
      return rows;
    },
    stop: async () => {
      unregister();
      await pool?.stop();
      await app.analytics.stop();
      await app.tiles.stop();
      await app.keyUsage.settle();
      await blobs.close();
      await store.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
};

const lastPosition = async (store: Store) => {
  const { rows } = await store.pool.query<{ last: string | null }>(
    'SELECT max(global_position)::text AS last FROM emt_messages',
  );
  return rows[0]?.last ?? '0';
};

export type UsedApp = AppUnderTest & { c: Client };

/**
 * An app for the suite it is called in: started before the suite's first test, stopped after its
 * last (as useApi does with a daemon). The value stands for the started app, with `c`, a client
 * of its workspace; reading it before the suite starts is an error.
 */
export const useApp = (options: AppOptions = {}): UsedApp =>
  forSuite(
    'the app',
    async () => {
      const app = await startApp(options);
      return { ...app, c: client(app.api, app.key) };
    },
    (app) => app.stop(),
  );
