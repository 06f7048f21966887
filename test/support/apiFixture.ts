// A running daemon on a fresh store with a workspace and an API key: what every API test needs.
import { type Daemon, flipbook, startDaemon } from './cli.ts';
import { tempDataDir } from './databases.ts';
import { type StoreKind, storeOptions } from './stores.ts';

export type ApiFixture = {
  daemon: Daemon;
  /** the API root, e.g. http://127.0.0.1:40123/api/v1 */
  api: string;
  key: string;
  workspaceId: string;
  /** --data-dir/--database-url arguments for admin commands on the same store */
  storeArgs: string[];
  /** creates another workspace on the same store and returns a key for it */
  newWorkspace: (
    name: string,
    plan?: 'team' | 'free',
  ) => Promise<{ key: string; workspaceId: string }>;
  stop: () => Promise<void>;
};

export const startApi = async (
  kind: StoreKind,
  serveArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ApiFixture> => {
  const options = await storeOptions(kind);
  const storeArgs = options.dataDir
    ? ['--data-dir', options.dataDir]
    : ['--database-url', options.databaseUrl ?? ''];
  // With an external database, blobs would default to ./data/blobs: keep tests out of the repo.
  const blobArgs =
    options.dataDir || serveArgs.includes('--blob-dir') ? [] : ['--blob-dir', await tempDataDir()];
  // No processing unless a test asks for it, so versions stay where the test puts them.
  const workerArgs = serveArgs.includes('--workers') ? [] : ['--workers', '0'];
  const daemon = await startDaemon([...storeArgs, ...blobArgs, ...workerArgs, ...serveArgs], env);
  const newWorkspace = async (name: string, plan: 'team' | 'free' = 'team') => {
    const created = await flipbook([
      'workspace',
      'create',
      name,
      '--plan',
      'team',
      '--json',
      ...storeArgs,
    ]);
    if (created.code !== 0) throw new Error(created.stderr);
    const issued = await flipbook(['key', 'create', '--workspace', name, '--json', ...storeArgs]);
    if (issued.code !== 0) throw new Error(issued.stderr);
    if (plan === 'free') await flipbook(['workspace', 'set-plan', name, 'free', ...storeArgs]);
    return {
      key: JSON.parse(issued.stdout).key as string,
      workspaceId: JSON.parse(created.stdout).id as string,
    };
  };
  const first = await newWorkspace('acme');
  return {
    daemon,
    api: `${daemon.url}/api/v1`,
    key: first.key,
    workspaceId: first.workspaceId,
    storeArgs,
    newWorkspace,
    stop: async () => {
      await daemon.stop();
    },
  };
};
