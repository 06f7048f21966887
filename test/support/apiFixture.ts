// A running daemon on a fresh store with a workspace and an API key: what every API test needs.
import { inject } from 'vitest';
import { issueApiKey } from '../../src/app/apiKeys.ts';
import { changePlan, createWorkspace } from '../../src/app/workspaces.ts';
import { actAsAdmin } from '../../src/cli/storeOptions.ts';
import { type BlobPlace, placeOf } from './blobPlace.ts';
import { type Daemon, startDaemon } from './cli.ts';
import { S3_ENV } from './s3Env.ts';
import { freshBucket } from './s3Server.ts';
import { type StoreKind, storeOptions } from './stores.ts';

export type ApiFixture = {
  daemon: Daemon;
  /** the API root, e.g. http://127.0.0.1:40123/api/v1 */
  api: string;
  key: string;
  workspaceId: string;
  /** --data-dir/--database-url arguments for admin commands on the same store */
  storeArgs: string[];
  /** the blob store's flags (none: the data dir's), for workers and `flipbook blobs` */
  blobArgs: string[];
  /** 'dir' or 's3': on the postgres store the daemon keeps its blobs in a bucket */
  blobKind: 'dir' | 's3';
  /** where the blobs are, for tests that look: a directory, or a bucket on the test S3 server */
  blobPlace: BlobPlace;
  /** creates another workspace on the same store and returns a key for it */
  newWorkspace: (
    name: string,
    plan?: 'team' | 'free',
  ) => Promise<{ key: string; workspaceId: string }>;
  stop: () => Promise<void>;
};

/** A store kind, or a database of the test's own (a server it starts, freezes, fills). */
export type StorePlace = StoreKind | { databaseUrl: string };

export const startApi = async (
  kind: StorePlace,
  serveArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ApiFixture> => {
  const options: { dataDir?: string; databaseUrl?: string } =
    typeof kind === 'object' ? kind : await storeOptions(kind, 'migrated');
  const storeArgs = options.dataDir
    ? ['--data-dir', options.dataDir]
    : ['--database-url', options.databaseUrl ?? ''];
  // The embedded store keeps its blobs in its data dir; the postgres store in a fresh bucket on
  // the run's S3 server, so the suite runs on both blob stores (a test that looks at files on
  // disk names its --blob-dir).
  const chosen = serveArgs.includes('--blob-dir') || serveArgs.includes('--blob-url');
  const blobArgs = options.dataDir || chosen ? [] : (await freshBucket(inject('s3Endpoint'))).args;
  const blobPlace = placeOf([...storeArgs, ...blobArgs, ...serveArgs]);
  const blobKind = blobPlace.kind;
  // No processing unless a test asks for it, so versions stay where the test puts them.
  const workerArgs = serveArgs.includes('--workers') ? [] : ['--workers', '0'];
  const daemon = await startDaemon([...storeArgs, ...blobArgs, ...workerArgs, ...serveArgs], {
    ...S3_ENV,
    ...env,
  });
  // The set-up's admin acts wait longer for the database than a user's would (5 s): on a loaded
  // machine a fresh embedded server took longer to accept one, and that bound is tested where it
  // is the subject (test/chaos/databaseStall, test/int/waitAtStart). They run the admin commands'
  // own code (actAsAdmin: the same actor, clock and store), in this process: the commands as a
  // user runs them are test/e2e/adminCli's, and two processes a daemon cost ~0.5 s.
  const admin = { ...options, databaseTimeout: '30' };
  const newWorkspace = (name: string, plan: 'team' | 'free' = 'team') =>
    actAsAdmin(admin, async (store, actor, now) => {
      const created = await createWorkspace(store, { name, plan: 'team' }, actor, now);
      const issued = await issueApiKey(store, { workspace: name }, actor, now);
      if (plan === 'free') await changePlan(store, { name, plan }, actor, now);
      return { key: issued.key, workspaceId: created.id };
    });
  // A workspace that cannot be made leaves no daemon behind (the suite never gets to stop it).
  const first = await newWorkspace('acme').catch(async (error: unknown) => {
    await daemon.stop().catch(() => {});
    throw error;
  });
  return {
    daemon,
    api: `${daemon.url}/api/v1`,
    key: first.key,
    workspaceId: first.workspaceId,
    storeArgs,
    blobArgs,
    blobKind,
    blobPlace,
    newWorkspace,
    stop: async () => {
      await daemon.stop();
    },
  };
};
