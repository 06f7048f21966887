import type { Command } from 'commander';
import { CliError, EXIT } from '../../../packages/cli/src/client/cliErrors.ts';
import { type BlobFlags, blobOptionsOf, checkBlobFlags, withBlobOptions } from '../blobOptions.ts';
import { type ConvertFlags, convertOptionsOf, withConvertOptions } from '../convertOptions.ts';
import { type ProcessingFlags, processingOf, withProcessingOptions } from '../processingOptions.ts';
import { type DaemonStoreFlags, daemonStoreOf, withDaemonStoreOptions } from '../storeOptions.ts';

type WorkerFlags = ProcessingFlags & DaemonStoreFlags;

export const registerWorker = (program: Command) => {
  withConvertOptions(
    withBlobOptions(
      withDaemonStoreOptions(
        withProcessingOptions(
          program
            .command('worker')
            .description(
              'process uploads only (scale out: run on more machines sharing the database and the bucket or blob directory)',
            ),
          'documents processed at once',
        ),
      ),
    ),
  ).action(async (flags: BlobFlags & WorkerFlags & ConvertFlags) => {
    const { openCheckedBlobStore } = await import('../../blobs/openBlobStore.ts');
    const { clockFromEnv } = await import('../../app/clock.ts');
    const { startBlobSweep } = await import('../../blobs/sweep.ts');
    const { installLastResort } = await import('../../lastResort.ts');
    const { logger } = await import('../../log.ts');
    const { sweepAtStart } = await import('../../pdf/poppler.ts');
    const { ignoreHangup, STOP_SIGNALS } = await import('../../signals.ts');
    const { logWaiting } = await import('../../startupPatience.ts');
    const { openStore } = await import('../../store/store.ts');
    const { renderOptionsFor } = await import('../../worker/renderSettings.ts');
    const { startWorkers, workerOptions } = await import('../../worker/workerPool.ts');
    checkBlobFlags(flags);
    const { workers: lanes, renderProcesses: processes } = processingOf(flags, 1);
    const { limits, patienceMs } = daemonStoreOf(flags);
    const { convert, missing } = convertOptionsOf(flags);
    installLastResort(logger);
    if (missing) {
      logger.warn(
        'office documents fail to process here: LibreOffice (soffice) is not installed; scripts/setup.sh installs it',
      );
    }
    // Stops on SIGTERM, SIGINT or SIGQUIT (jobs in flight handed back at once), one sent while
    // starting included; goes on after SIGHUP, saying so (src/signals.ts).
    const stopRequested = new Promise<string>((resolve) => {
      for (const name of STOP_SIGNALS) process.on(name, () => resolve(name));
    });
    ignoreHangup(logger);
    void sweepAtStart(logger);
    const store = await openStore({
      dataDir: flags.dataDir,
      databaseUrl: flags.databaseUrl,
      limits,
      startupPatienceMs: patienceMs,
      onWaiting: logWaiting(logger),
    });
    // Decisions follow the database's time, as the daemons' do (src/store/databaseTime.ts).
    const { followDatabaseTime } = await import('../../store/databaseTime.ts');
    const databaseTime = followDatabaseTime(store.db, logger);
    await databaseTime.measure();
    databaseTime.follow();
    const blobs = await openCheckedBlobStore(
      { ...blobOptionsOf(flags), clockOffsetMs: databaseTime.offsetMs() },
      { patienceMs, onWaiting: logWaiting(logger) },
    ).catch(async (error: Error) => {
      await store.close();
      throw new CliError(EXIT.failure, error.message);
    });
    const clock = clockFromEnv(process.env, databaseTime.nowMs);
    const sweep = startBlobSweep(store, blobs, logger, clock.now());
    const pool = startWorkers(
      { store, blobs, log: logger, render: renderOptionsFor(processes), clock, convert },
      workerOptions(lanes),
    );
    logger.info(
      { lanes, processes, store: store.describe, blobs: blobs.describe },
      'flipbook worker ready',
    );
    const signal = await stopRequested;
    logger.info({ signal }, 'worker stopping: handing back the jobs in flight');
    await pool.stop();
    await sweep.stop();
    await store.close();
    await blobs.close();
    logger.info('worker stopped');
  });
};
