// vitest globalSetup: one throwaway PostgreSQL server for the whole run, its URL provided to the
// tests as `pgUrl` (read it with `inject('pgUrl')`, or use freshDatabase() from databases.ts).
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { startImageBuild } from './containerImage.ts';
import { startPostgresServer } from './postgresServer.ts';
import { startS3Server } from './s3Server.ts';
import { stopStrayServers } from './strayServers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    /** the run's S3-protocol server (s3rver), for the bucket store */
    s3Endpoint: string;
    /** names this run's temporary data directories (see strayServers.ts) */
    runId: string;
    /** the container image being built for the container suite (containerImage.ts) */
    containerImage: { tag: string; resultFile: string };
  }
}

const CONTAINER_SUITE = 'test/e2e/container.e2e.test.ts';

export default async function setup(project: TestProject) {
  // The container suite's image, built meanwhile: only when that suite is in the run (every
  // file, or filters of which one names it), not for `vitest run test/unit`.
  const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-') && arg !== 'run');
  const image =
    filters.length === 0 || filters.some((f) => CONTAINER_SUITE.includes(f))
      ? startImageBuild()
      : null;
  if (image) project.provide('containerImage', { tag: image.tag, resultFile: image.resultFile });
  const startedAt = performance.now();
  const server = await startPostgresServer();
  const ms = Math.round(performance.now() - startedAt);
  if (process.env.FLIPBOOK_TEST_DEBUG) console.info(`test PostgreSQL on ${server.url} (${ms} ms)`);
  project.provide('pgUrl', server.url);
  const s3 = await startS3Server();
  project.provide('s3Endpoint', s3.endpoint);
  const runId = randomBytes(4).toString('hex');
  project.provide('runId', runId);
  return async () => {
    await stopStrayServers(runId);
    await server.stop();
    await s3.stop();
    await image?.done();
  };
}
