// The daemon's composition root: store, blob store, HTTP API, signals. Resolves once shut down.
import type { AddressInfo } from 'node:net';
import { openBlobStore } from './blobs/blobStore.ts';
import { startBlobSweep } from './blobs/sweep.ts';
import { mountApi, readsBody } from './http/api.ts';
import { discardBody } from './http/bodyLimit.ts';
import { mountFiles } from './http/files.ts';
import { urlsFor } from './http/present.ts';
import { createRateLimiter } from './http/rateLimit.ts';
import { createHttpServer } from './http/server.ts';
import { installLastResort } from './lastResort.ts';
import { logger } from './log.ts';
import { mountReader } from './reader/readerRoutes.ts';
import { defaultBlobDir } from './store/location.ts';
import { openStore } from './store/store.ts';
import { renderOptionsFor } from './worker/renderSettings.ts';
import { startWorkers, workerOptions } from './worker/workerPool.ts';

export type DaemonOptions = {
  port: number;
  host: string;
  dataDir?: string;
  databaseUrl?: string;
  blobDir?: string;
  publicUrl?: string;
  rateLimit: number;
  trustProxy: boolean;
  /** record client IPs and user agents in events' metadata (personal data: --no-client-info) */
  recordClientInfo: boolean;
  /** processing lanes inside the daemon; 0 leaves processing to `flipbook worker` */
  workers: number;
};

/** The daemon could not start (its port is taken, say): nothing is left running. */
export class StartupError extends Error {
  override name = 'StartupError';
}

export const runDaemon = async (options: DaemonOptions) => {
  const started = performance.now();
  installLastResort(logger);
  // Listened for from the first moment: a SIGTERM while starting stops the daemon cleanly once
  // it has started, instead of killing it halfway (Node's default for an unhandled SIGTERM).
  const stopRequested = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const store = await openStore({ dataDir: options.dataDir, databaseUrl: options.databaseUrl });
  const blobs = await openBlobStore(options.blobDir ?? defaultBlobDir(options.dataDir));
  const sweep = startBlobSweep(store, blobs, logger); // in the background: readiness never waits
  const limiter = createRateLimiter(store.db, {
    limit: options.rateLimit,
    trustProxy: options.trustProxy,
  });

  let publicUrl = options.publicUrl ?? '';
  const urls = urlsFor(() => publicUrl);
  const server = createHttpServer(
    logger,
    (routes) => {
      // Healthy means able to serve: the database answers (a load balancer takes a daemon whose
      // database is gone out of rotation).
      routes.get('/healthz', async (_req, res) => {
        const ok = await withTimeout(store.db.query('SELECT 1'), 2000).then(
          () => true,
          () => false,
        );
        if (ok) sendJson(res, 200, { status: 'ok' });
        else sendError(res, 503, 'The database is unavailable');
      });
      mountApi(routes, { store, blobs, urls, log: logger });
      mountFiles(routes, { db: store.db, blobs });
      mountReader(routes, { db: store.db, blobs, urls });
    },
    async (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (!path.startsWith('/api/v1/') && path !== '/api/v1') return;
      await limiter.check(req, res);
      if (!readsBody(req.method, path)) await discardBody(req);
    },
    { trustProxy: options.trustProxy, recordClientInfo: options.recordClientInfo },
  );
  // A 512 MB upload on a slow link takes longer than Node's default 300 s request timeout.
  server.requestTimeout = 60 * 60 * 1000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, resolve);
    });
  } catch (error) {
    // Nothing may go on without the HTTP side (no processing lanes taking jobs unseen): close
    // the store and say why, and the command exits non-zero.
    await sweep.stop();
    await store.close();
    const e = error as NodeJS.ErrnoException;
    const where = `${options.host}:${options.port}`;
    throw new StartupError(
      e.code === 'EADDRINUSE'
        ? `cannot listen on ${where}: the address is already in use (is another flipbook running?)`
        : e.code === 'EACCES'
          ? `cannot listen on ${where}: permission denied`
          : `cannot listen on ${where}: ${e.message}`,
    );
  }
  // Processing starts once the daemon serves: a daemon that cannot start takes no jobs.
  const workers =
    options.workers > 0
      ? startWorkers(
          { store, blobs, log: logger, render: renderOptionsFor(options.workers) },
          workerOptions(options.workers),
        )
      : null;
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  publicUrl ||= `http://${host}:${port}`;
  logger.info(
    {
      port,
      host: options.host,
      publicUrl,
      store: store.describe,
      blobs: blobs.root,
      rateLimit: options.rateLimit,
      workers: options.workers,
      startupMs: Math.round(performance.now() - started),
    },
    `flipbook ready on ${publicUrl}`,
  );

  const signal = await stopRequested;
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections become idle as their last response ends; close them as they do.
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    server.once('close', () => clearInterval(idle));
  });
  // In-flight renders are abandoned and their jobs handed back at once for the next start.
  await workers?.stop();
  await sweep.stop();
  await store.close();
  logger.info('stopped');
};

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error('timed out')), ms).unref();
    }),
  ]);
