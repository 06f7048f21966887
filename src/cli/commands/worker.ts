import type { Command } from 'commander';
import { openBlobStore } from '../../blobs/blobStore.ts';
import { startBlobSweep } from '../../blobs/sweep.ts';
import { installLastResort } from '../../lastResort.ts';
import { logger } from '../../log.ts';
import { sweepWrapperDirs } from '../../pdf/poppler.ts';
import { defaultBlobDir } from '../../store/location.ts';
import { openStore } from '../../store/store.ts';
import { defaultLanes, renderOptionsFor } from '../../worker/renderSettings.ts';
import { startWorkers, workerOptions } from '../../worker/workerPool.ts';
import { flagInteger } from '../flagInteger.ts';
import { type StoreFlags, withStoreOptions } from '../storeOptions.ts';

export const registerWorker = (program: Command) => {
  withStoreOptions(
    program
      .command('worker')
      .description(
        'process uploaded PDFs only (scale out: run on more machines sharing the database and blob directory)',
      )
      .option('--workers <n>', 'processing lanes', String(defaultLanes()))
      .option('--blob-dir <dir>', 'the blob directory the daemon uses (default: <data-dir>/blobs)'),
  ).action(async (flags: StoreFlags & { workers: string; blobDir?: string }) => {
    const lanes = flagInteger('--workers', flags.workers, 1, 64);
    installLastResort(logger);
    void sweepWrapperDirs().catch(() => {});
    const store = await openStore({ dataDir: flags.dataDir, databaseUrl: flags.databaseUrl });
    const blobs = await openBlobStore(flags.blobDir ?? defaultBlobDir(flags.dataDir));
    const sweep = startBlobSweep(store, blobs, logger);
    const pool = startWorkers(
      { store, blobs, log: logger, render: renderOptionsFor(lanes) },
      workerOptions(lanes),
    );
    logger.info({ lanes, store: store.describe, blobs: blobs.root }, 'flipbook worker ready');
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', () => resolve());
      process.once('SIGINT', () => resolve());
    });
    await pool.stop();
    await sweep.stop();
    await store.close();
    logger.info('worker stopped');
  });
};
