// The daemon's composition root: store, HTTP server, signals. Resolves when it has shut down.
import type { AddressInfo } from 'node:net';
import { createHttpServer } from './http/server.ts';
import { logger } from './log.ts';
import { openStore } from './store/store.ts';

export type DaemonOptions = {
  port: number;
  host: string;
  dataDir?: string;
  databaseUrl?: string;
  publicUrl?: string;
};

export const runDaemon = async (options: DaemonOptions) => {
  const started = performance.now();
  const store = await openStore({ dataDir: options.dataDir, databaseUrl: options.databaseUrl });
  const server = createHttpServer(logger, () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const publicUrl =
    options.publicUrl ??
    `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  logger.info(
    {
      port,
      host: options.host,
      publicUrl,
      store: store.describe,
      startupMs: Math.round(performance.now() - started),
    },
    `flipbook ready on ${publicUrl}`,
  );

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down: finishing in-flight requests');
      server.close(() => resolve());
      server.closeIdleConnections();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await store.close();
  logger.info('stopped');
};
