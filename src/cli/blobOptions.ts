// Every command that reads or writes blobs takes the same flags: a directory (the default) or an
// S3-compatible bucket, whose region and credentials come from the AWS SDK's usual chain
// (AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profiles).
import type { Command } from 'commander';
import { CliError, EXIT } from '../../packages/cli/src/client/cliErrors.ts';
import { DEFAULT_BUCKET_TIMEOUT_S } from '../blobs/bucketLimits.ts';
import type { BlobOptions } from '../blobs/openBlobStore.ts';
import { parseS3Url } from '../blobs/s3Url.ts';
import { flagInteger } from './flagInteger.ts';

export type BlobFlags = Omit<BlobOptions, 'dataDir' | 's3Timeout'> & { s3Timeout?: string };

export const withBlobOptions = (command: Command) =>
  command
    .option('--blob-dir <dir>', 'where originals and page images go (default: <data-dir>/blobs)')
    .option('--blob-url <url>', 'keep them in an S3-compatible bucket: s3://BUCKET[/PREFIX]')
    .option(
      '--s3-endpoint <url>',
      "the bucket's endpoint, for stores other than AWS (default: $AWS_ENDPOINT_URL_S3)",
    )
    .option('--s3-path-style', 'address the bucket in the path, not the host name (MinIO, Ceph...)')
    .option(
      '--s3-timeout <seconds>',
      `seconds the bucket may take to connect, to free a connection, or stay silent mid-request; 1.6 times it for a request with its retries (default ${DEFAULT_BUCKET_TIMEOUT_S}, 1 to 60)`,
    );

/** The blob options the flags ask for (--s3-timeout read as a number). */
export const blobOptionsOf = <F extends BlobFlags>(
  flags: F,
): Omit<F, 's3Timeout'> & { s3Timeout?: number } => {
  const { s3Timeout, ...rest } = flags;
  return s3Timeout === undefined
    ? rest
    : { ...rest, s3Timeout: flagInteger('--s3-timeout', s3Timeout, 1, 60) };
};

/** Refuses impossible combinations before anything starts. */
export const checkBlobFlags = (flags: BlobFlags, s3Elsewhere = false) => {
  if (flags.blobUrl && flags.blobDir) {
    throw new CliError(EXIT.usage, '--blob-dir and --blob-url name two stores: give one');
  }
  if (flags.blobUrl) {
    try {
      parseS3Url(flags.blobUrl);
    } catch (error) {
      throw new CliError(EXIT.usage, `--blob-url: ${(error as Error).message}`);
    }
  }
  if (flags.s3Endpoint && !/^https?:\/\/[^/]/.test(flags.s3Endpoint)) {
    throw new CliError(
      EXIT.usage,
      `--s3-endpoint must be an http(s) URL, got "${flags.s3Endpoint}"`,
    );
  }
  if (
    !flags.blobUrl &&
    !s3Elsewhere &&
    (flags.s3Endpoint || flags.s3PathStyle || flags.s3Timeout)
  ) {
    throw new CliError(
      EXIT.usage,
      '--s3-endpoint, --s3-path-style and --s3-timeout need --blob-url s3://...',
    );
  }
  if (flags.s3Timeout !== undefined) flagInteger('--s3-timeout', flags.s3Timeout, 1, 60);
};

/**
 * --blob-public-url: where the bucket's keys are public. Only with a bucket (a directory's page
 * files sit behind attempt links, under other paths), and only a plain http(s) base: no
 * credentials (they would go to every reader), no query or fragment (keys are appended to it),
 * nothing a URL must escape.
 */
export const checkBlobPublicUrl = (url: string | undefined, blobUrl: string | undefined) => {
  if (url === undefined) return undefined;
  if (!blobUrl) {
    throw new CliError(
      EXIT.usage,
      '--blob-public-url needs --blob-url s3://...: it names where the bucket is public',
    );
  }
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // refused below
  }
  const plain =
    parsed &&
    /^https?:\/\/[^/]/i.test(url) &&
    /^https?:$/.test(parsed.protocol) &&
    !parsed.username &&
    !parsed.password &&
    !parsed.search &&
    !parsed.hash &&
    !url.includes('#') &&
    !url.includes('?') &&
    /^[A-Za-z0-9._~:/%-]+$/.test(url);
  if (!plain) {
    throw new CliError(
      EXIT.usage,
      `--blob-public-url must be a plain http(s) URL (no credentials, query or fragment), got "${url}"`,
    );
  }
  // As the URL parser reads it (host lower-cased, nothing left for a browser to read otherwise).
  return (parsed as URL).href.replace(/\/+$/, '');
};
