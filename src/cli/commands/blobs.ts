// `flipbook blobs gc` and `flipbook blobs copy`: the blob store's housekeeping, on the same flags
// as `serve` (--blob-dir, or --blob-url with --s3-endpoint/--s3-path-style).
import type { Command } from 'commander';
import { CliError, EXIT } from '../../../packages/cli/src/client/cliErrors.ts';
import { printJson } from '../../../packages/cli/src/output.ts';
import { type BlobFlags, blobOptionsOf, checkBlobFlags, withBlobOptions } from '../blobOptions.ts';
import { adminNow, type StoreFlags, withStore, withStoreOptions } from '../storeOptions.ts';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export const registerBlobs = (program: Command) => {
  const blobs = program
    .command('blobs')
    .description('housekeeping of the blob store (originals and page images)');

  withBlobOptions(
    withStoreOptions(
      blobs
        .command('gc')
        .description(
          'remove files no live version uses (deleted versions, refused or abandoned uploads); safe while daemons run',
        )
        .option('--dry-run', 'only report what would be removed')
        .option('--json', 'print JSON'),
    ),
  ).action(async (flags: StoreFlags & BlobFlags & { dryRun?: boolean; json?: boolean }) => {
    const { openCheckedBlobStore } = await import('../../blobs/openBlobStore.ts');
    const { sweepBlobs } = await import('../../blobs/sweep.ts');
    const { default: pino } = await import('pino');
    checkBlobFlags(flags);
    const store = await openCheckedBlobStore(blobOptionsOf(flags)).catch((error: Error) => {
      throw new CliError(EXIT.failure, error.message);
    });
    try {
      const report = await withStore(
        flags,
        (db) =>
          sweepBlobs(
            db,
            store,
            pino({ level: 'silent' }),
            adminNow(),
            undefined,
            flags.dryRun ?? false,
          ),
        { long: true },
      );
      if (report.refused) throw new CliError(EXIT.failure, report.refused);
      const total = {
        count: report.temporaries.count + report.originals.count + report.pageFolders.count,
        bytes: report.temporaries.bytes + report.originals.bytes + report.pageFolders.bytes,
      };
      if (flags.json) return printJson({ dryRun: flags.dryRun ?? false, ...report, total });
      const verb = flags.dryRun ? 'would remove' : 'removed';
      process.stdout.write(
        [
          `${verb} ${report.temporaries.count} upload temporaries (${mb(report.temporaries.bytes)})`,
          `${verb} ${report.originals.count} unused originals (${mb(report.originals.bytes)})`,
          `${verb} ${report.pageFolders.count} page folders of deleted versions (${mb(report.pageFolders.bytes)})`,
          `${verb} ${total.count} in all, ${mb(total.bytes)}`,
        ].join('\n') + '\n',
      );
    } finally {
      await store.close();
    }
  });

  withBlobOptions(
    blobs
      .command('copy')
      .description(
        'copy every original and page file into another store (s3://bucket[/prefix] or a directory); files already there are skipped',
      )
      .requiredOption('--to <url>', 'the destination: s3://BUCKET[/PREFIX], or a directory')
      .option(
        '--data-dir <dir>',
        'the source is <data-dir>/blobs unless --blob-dir or --blob-url says',
      )
      .option('--json', 'print JSON'),
  ).action(async (flags: BlobFlags & { dataDir?: string; to: string; json?: boolean }) => {
    const { copyBlobs } = await import('../../blobs/copy.ts');
    const { openCheckedBlobStore } = await import('../../blobs/openBlobStore.ts');
    if (flags.to.trim() === '')
      throw new CliError(EXIT.usage, '--to needs s3://BUCKET[/PREFIX] or a directory');
    checkBlobFlags(flags, flags.to.startsWith('s3://'));
    if (flags.to.startsWith('s3://')) checkBlobFlags({ blobUrl: flags.to });
    const destination = flags.to.startsWith('s3://')
      ? {
          blobUrl: flags.to,
          ...(flags.s3Endpoint ? { s3Endpoint: flags.s3Endpoint } : {}),
          s3PathStyle: flags.s3PathStyle ?? false,
          ...(blobOptionsOf(flags).s3Timeout ? { s3Timeout: blobOptionsOf(flags).s3Timeout } : {}),
        }
      : { blobDir: flags.to };
    if (/^[a-z0-9]+:\/\//i.test(flags.to) && !flags.to.startsWith('s3://')) {
      throw new CliError(
        EXIT.usage,
        `--to must be s3://BUCKET[/PREFIX] or a directory, got "${flags.to}"`,
      );
    }
    const from = await openCheckedBlobStore(blobOptionsOf(flags)).catch((error: Error) => {
      throw new CliError(EXIT.failure, error.message);
    });
    const to = await openCheckedBlobStore({
      ...destination,
      ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
    }).catch(async (error: Error) => {
      await from.close();
      throw new CliError(EXIT.failure, error.message);
    });
    let failures = 0;
    try {
      let shown = Date.now();
      const report = await copyBlobs(from, to, {
        onProgress: (r) => {
          if (flags.json || Date.now() - shown < 2000) return;
          shown = Date.now();
          process.stderr.write(`copied ${r.copied} (${mb(r.bytes)}), ${r.skipped} already there\n`);
        },
        onError: (key, error) => {
          failures += 1;
          process.stderr.write(`could not copy ${key}: ${(error as Error).message}\n`);
        },
      });
      if (flags.json) printJson({ from: from.describe, to: to.describe, ...report });
      else {
        process.stdout.write(
          `copied ${report.copied} files (${mb(report.bytes)}) from ${from.describe} to ${to.describe}; ${report.skipped} were already there${report.failed ? `; ${report.failed} failed` : ''}\n`,
        );
      }
    } finally {
      await from.close();
      await to.close();
    }
    if (failures > 0) {
      throw new CliError(
        EXIT.failure,
        `${failures} files could not be copied; run it again to retry them`,
      );
    }
  });
};
