// vitest globalSetup: one throwaway PostgreSQL server for the whole run, its URL provided to the
// tests as `pgUrl` (read it with `inject('pgUrl')`, or use freshDatabase() from databases.ts).
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { requireCorpus } from './corpus.ts';
import { makeDataRoot } from './dataRoot.ts';
import { startPostgresServer } from './postgresServer.ts';
import { startS3Server } from './s3Server.ts';
import { schemaTemplate } from './schemaTemplate.ts';
import { stopStrayServers } from './strayServers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    /** a database on it with this code's schema made, copied by migratedDatabase() */
    pgTemplate: string;
    /** the run's S3-protocol server (s3rver), for the bucket store */
    s3Endpoint: string;
    /** names this run's temporary data directories (see strayServers.ts) */
    runId: string;
  }
}

export default async function setup(project: TestProject) {
  requireCorpus();
  const startedAt = performance.now();
  const server = await startPostgresServer();
  const ms = Math.round(performance.now() - startedAt);
  if (process.env.FLIPBOOK_TEST_DEBUG) console.info(`test PostgreSQL on ${server.url} (${ms} ms)`);
  project.provide('pgUrl', server.url);
  project.provide('pgTemplate', await schemaTemplate(server.url));
  const s3 = await startS3Server();
  project.provide('s3Endpoint', s3.endpoint);
  const runId = randomBytes(4).toString('hex');
  project.provide('runId', runId);
  const removeDataRoot = makeDataRoot(runId);
  return async () => {
    await stopStrayServers(runId);
    removeDataRoot();
    await server.stop();
    await s3.stop();
  };
}
