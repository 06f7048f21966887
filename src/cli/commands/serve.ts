// `flipbook serve`: the daemon's flags and environment, checked (a bad value is exit 2 in words)
// before anything starts, then handed to runDaemon (src/daemon.ts).
import type { Command } from 'commander';
import { CliError, EXIT } from '../../../packages/cli/src/client/cliErrors.ts';
import { DEFAULT_RATE_LIMIT } from '../../http/rateLimit.ts';
import {
  type BlobFlags,
  blobOptionsOf,
  checkBlobFlags,
  checkBlobPublicUrl,
  withBlobOptions,
} from '../blobOptions.ts';
import { type ConvertFlags, convertOptionsOf, withConvertOptions } from '../convertOptions.ts';
import { flagBytes } from '../flagBytes.ts';
import { flagDuration } from '../flagDuration.ts';
import { flagInteger } from '../flagInteger.ts';
import { type MailFlags, mailSettingsOf, withMailOptions } from '../mailOptions.ts';
import { type ProcessingFlags, processingOf, withProcessingOptions } from '../processingOptions.ts';
import { type SsoFlags, ssoSettingsOf, withSsoOptions } from '../ssoOptions.ts';
import { type DaemonStoreFlags, daemonStoreOf, withDaemonStoreOptions } from '../storeOptions.ts';

/** An address OpenAPI's `email` format takes: one @, no spaces, a dot in the domain. */
export const flagEmail = (text: string) => {
  const address = text.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address) || address.length > 254) {
    throw new CliError(
      EXIT.usage,
      `--contact-email must be an email address (ops@example.com), got "${text}"`,
    );
  }
  return address;
};

export const registerServe = (program: Command) => {
  withConvertOptions(
    withMailOptions(
      withSsoOptions(
        withBlobOptions(
          withDaemonStoreOptions(
            withProcessingOptions(
              program
                .command('serve')
                .description('run the flipbook daemon (HTTP API, reader, processing)')
                .option(
                  '--port <port>',
                  'TCP port (default: $PORT, else 8080)',
                  process.env.PORT || '8080',
                )
                .option('--host <host>', 'address to listen on', '127.0.0.1')
                .option('--public-url <url>', 'base of every absolute URL the API returns')
                .option(
                  '--blob-public-url <url>',
                  "where the bucket's page images are public (a CDN): the API's image URLs point there",
                )
                .option(
                  '--rate-limit <n>',
                  'API requests per minute per client IP; 0 turns it off',
                  String(DEFAULT_RATE_LIMIT),
                )
                .option(
                  '--trust-proxy',
                  'take the client IP from X-Forwarded-For (behind a reverse proxy)',
                )
                .option(
                  '--no-client-info',
                  "do not record clients' IP addresses and user agents in the audit trail (personal data)",
                )
                .option(
                  '--contact-email <address>',
                  "who runs this service: the API document's contact (info.contact in /api/v1/openapi.json)",
                )
                .option(
                  '--webhook-allow-private',
                  'let webhooks reach loopback, private and link-local addresses (tests, private networks)',
                )
                .option(
                  '--keep-alive-timeout <seconds>',
                  'how long an idle keep-alive connection stays open; above your load balancer’s idle timeout',
                  '65',
                )
                .option(
                  '--grace <seconds>',
                  'on SIGTERM, how long requests in flight may finish',
                  '30',
                )
                .option(
                  '--geoip-file <path>',
                  "count readers' countries with this MaxMind DB file (GeoLite2 or DB-IP Country); off without it",
                ),
              'documents this daemon processes at once (0: none)',
            )
              .option(
                '--tile-cache-size <size>',
                'deep-zoom tiles kept in the blob store, shared by every daemon on the database (e.g. 2G, 500M); the least recently used go beyond it',
                '2G',
              )
              .option(
                '--preview-ttl <duration>',
                'delete previews last pushed to longer ago than this (e.g. 30d, 12h; 0: never)',
                '30d',
              ),
          ),
        ),
      ),
    ),
  ).action(
    async (
      flags: DaemonStoreFlags &
        BlobFlags &
        SsoFlags &
        MailFlags &
        ConvertFlags &
        ProcessingFlags & {
          port: string;
          host: string;
          publicUrl?: string;
          blobPublicUrl?: string;
          rateLimit: string;
          trustProxy?: boolean;
          webhookAllowPrivate?: boolean;
          contactEmail?: string;
          geoipFile?: string;
          clientInfo: boolean;
          tileCacheSize: string;
          previewTtl: string;
          grace: string;
          keepAliveTimeout: string;
        },
    ) => {
      const { runDaemon, StartupError } = await import('../../daemon.ts');
      const port = flagInteger('--port', flags.port, 0, 65535);
      const rateLimit = flagInteger('--rate-limit', flags.rateLimit, 0, 1_000_000);
      const { workers, renderProcesses } = processingOf(flags, 0);
      const graceMs = flagInteger('--grace', flags.grace, 0, 86_400) * 1000;
      const { limits: databaseLimits, patienceMs: startupPatienceMs } = daemonStoreOf(flags);
      const previewTtlMs = flagDuration('--preview-ttl', flags.previewTtl);
      const tileCacheBytes = flagBytes('--tile-cache-size', flags.tileCacheSize, 1024 ** 5);
      const keepAliveMs =
        flagInteger('--keep-alive-timeout', flags.keepAliveTimeout, 1, 3_600) * 1000;
      // An environment setting rather than a flag: tests set it to 0 to see "last used" at once.
      const usageInterval = process.env.FLIPBOOK_KEY_USAGE_INTERVAL_MS;
      const keyUsageIntervalMs = usageInterval
        ? flagInteger('FLIPBOOK_KEY_USAGE_INTERVAL_MS', usageInterval, 0, 86_400_000)
        : undefined;
      checkBlobFlags(flags);
      const sso = ssoSettingsOf(flags, process.env);
      const mail = mailSettingsOf(flags, process.env);
      const blobPublicUrl = checkBlobPublicUrl(flags.blobPublicUrl, flags.blobUrl);
      if (flags.publicUrl && !/^https?:\/\/[^/]/.test(flags.publicUrl)) {
        throw new CliError(
          EXIT.usage,
          `--public-url must be an http(s) URL, got "${flags.publicUrl}"`,
        );
      }
      const contactEmail =
        flags.contactEmail === undefined ? undefined : flagEmail(flags.contactEmail);
      if (flags.geoipFile !== undefined && flags.geoipFile.trim() === '') {
        throw new CliError(EXIT.usage, '--geoip-file: name a MaxMind DB file');
      }
      const { convert, missing } = convertOptionsOf(flags);
      if (missing) {
        const { logger } = await import('../../log.ts');
        logger.warn(
          'office documents are refused: LibreOffice (soffice) is not installed; scripts/setup.sh installs it, --no-convert says it is meant',
        );
      }
      await runDaemon({
        ...blobOptionsOf(flags),
        convert,
        port,
        rateLimit,
        workers,
        renderProcesses,
        tileCacheBytes,
        previewTtlMs,
        trustProxy: flags.trustProxy ?? false,
        webhookAllowPrivate: flags.webhookAllowPrivate ?? false,
        ...(contactEmail ? { contactEmail } : {}),
        recordClientInfo: flags.clientInfo,
        graceMs,
        keepAliveMs,
        startupPatienceMs,
        databaseLimits,
        keyUsageIntervalMs,
        ...(blobPublicUrl ? { blobPublicUrl } : {}),
        ...(sso ? { sso } : {}),
        ...(mail ? { mail } : {}),
      }).catch((error: unknown) => {
        if (error instanceof StartupError) throw new CliError(EXIT.failure, error.message);
        throw error;
      });
    },
  );
};
