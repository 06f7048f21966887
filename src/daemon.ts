// The daemon: store, blob store, the HTTP app (./composeApp.ts) on a port, workers, sweeps,
// signals. Resolves once shut down.
// One file (over 300 lines): the start and the stop of everything the daemon runs, in one order
// each way, so a stop undoes what a start did.

import type { AddressInfo } from 'node:net';
import { missingJoinWorkspaces, type SsoSettings } from './app/accounts/sso.ts';
import { openCountries } from './app/analytics/countries.ts';
import { clockFromEnv } from './app/clock.ts';
import { DEFAULT_PREVIEW_TTL_MS, startPreviewSweep } from './app/previewSweep.ts';
import { installationSecret } from './app/readerAccess.ts';
import { startReadingSummaries } from './app/readerAlerts.ts';
import { openCheckedBlobStore } from './blobs/openBlobStore.ts';
import { startBlobSweep } from './blobs/sweep.ts';
import { composeApp } from './composeApp.ts';
import { DASHBOARD_SCRIPT, DASHBOARD_STYLES } from './dashboard/assets.ts';
import { dataVolumeWarning } from './dataVolume.ts';
import { serveHttpApp } from './http/server.ts';
import { makeAssetsNow } from './http/staticAssets.ts';
import { installLastResort } from './lastResort.ts';
import { logger } from './log.ts';
import { describeSmtpServer, type MailSettings } from './mail/mailSettings.ts';
import { startMailSender } from './mail/sender.ts';
import { jobGauge, mailGauges, renderSlotGauge } from './metrics.ts';
import { sweepAtStart } from './pdf/poppler.ts';
import { SCRIPT, STYLESHEET } from './reader/assets.ts';
import { readiness, withTimeout } from './readiness.ts';
import { countJobs } from './readTables/jobs.ts';
import { ignoreHangup, STOP_SIGNALS } from './signals.ts';
import { logWaiting, STARTUP_PATIENCE_MS } from './startupPatience.ts';
import { mailHealth } from './state/mailOutbox.ts';
import { setMeta } from './state/meta.ts';
import type { DatabaseLimits } from './store/databaseLimits.ts';
import { followDatabaseTime } from './store/databaseTime.ts';
import { DEFAULT_DATA_DIR } from './store/location.ts';
import { openStore } from './store/store.ts';
import { startWebhookSender } from './webhooks/sender.ts';
import type { ConvertOptions } from './worker/processDeps.ts';
import { defaultRenderProcesses, renderOptionsFor } from './worker/renderSettings.ts';
import { startWorkers, workerOptions } from './worker/workerPool.ts';

export type DaemonOptions = {
  port: number;
  host: string;
  dataDir?: string;
  databaseUrl?: string;
  blobDir?: string;
  /** s3://bucket[/prefix]: blobs in an S3-compatible bucket instead of a directory */
  blobUrl?: string;
  s3Endpoint?: string;
  s3PathStyle?: boolean;
  /** --s3-timeout, in seconds (src/blobs/bucketLimits.ts) */
  s3Timeout?: number;
  /** page images are addressed here (a CDN or a public bucket) instead of /files/pages */
  blobPublicUrl?: string;
  publicUrl?: string;
  rateLimit: number;
  trustProxy: boolean;
  /** record client IPs and user agents in events' metadata (personal data: --no-client-info) */
  recordClientInfo: boolean;
  /** how long a stop waits for requests in flight before cutting them */
  graceMs: number;
  /** at start, how long the database and the bucket are each waited for (--wait-at-start) */
  startupPatienceMs?: number;
  /** processing lanes inside the daemon; 0 leaves processing to `flipbook worker` */
  workers: number;
  /** renderer processes at once, shared by the documents the workers process */
  renderProcesses?: number;
  /** deep-zoom tiles kept, in bytes, across the daemons on the database (--tile-cache-size) */
  tileCacheBytes?: number;
  /** previews last pushed to longer ago than this are deleted (0: never); default 30 days */
  previewTtlMs?: number;
  /** at most one "last used" write per key per this many ms (FLIPBOOK_KEY_USAGE_INTERVAL_MS) */
  keyUsageIntervalMs?: number;
  /** how long an idle keep-alive connection stays open (--keep-alive-timeout) */
  keepAliveMs?: number;
  /** webhooks may be sent to loopback, private and link-local addresses (--webhook-allow-private) */
  webhookAllowPrivate?: boolean;
  /** the operator's address in the OpenAPI document's info.contact (--contact-email) */
  contactEmail?: string;
  /** the bounds on every use of the database (--database-timeout) */
  databaseLimits?: DatabaseLimits;
  /** single sign-on for the dashboard (--oidc-issuer, --oidc-client-id, --oidc-join) */
  sso?: SsoSettings;
  /** a MaxMind DB file: readers' countries are counted (--geoip-file) */
  geoipFile?: string;
  /** the mail server and sender (--smtp-url, --mail-from); none: no mail is sent */
  mail?: MailSettings;
  /** how uploads that are not PDFs are converted (--convert-timeout, --no-convert) */
  convert?: ConvertOptions;
};

/**
 * Idle keep-alive connections stay open this long: longer than a load balancer's idle timeout
 * (60 s for AWS ALB, nginx's upstream keepalive_timeout, GCP's 600 s aside), so the balancer
 * always closes first. Node's default, 5 s, lets the daemon close a connection the balancer is
 * about to reuse, and that request fails at random.
 */
export const DEFAULT_KEEP_ALIVE_MS = 65_000;

/** Two stop signals this close together are one, delivered twice (see the shutdown below). */
const SAME_SIGNAL_MS = 500;

/** The daemon could not start (its port is taken, say): nothing is left running. */
export class StartupError extends Error {
  override name = 'StartupError';
}

export const runDaemon = async (options: DaemonOptions) => {
  const started = performance.now();
  installLastResort(logger);
  // scratch folders of processes killed before they could remove them, and their tools
  void sweepAtStart(logger);
  // Listened for from the first moment: a SIGTERM while starting stops the daemon cleanly once
  // it has started, instead of killing it halfway (Node's default for an unhandled SIGTERM).
  // A second signal while shutting down cuts the remaining connections at once (still a clean
  // stop: renders handed back, the store closed), as does the end of the grace period. SIGQUIT
  // ("quit now") is that clean stop with no grace. Every way out that runs no code of ours
  // (kill -9, a crash) leaves the embedded PostgreSQL to its watchdog (serverWatchdog.ts).
  const signals = new EventTarget();
  const onSignal = (name: string) => () => signals.dispatchEvent(new Event(name));
  for (const name of STOP_SIGNALS) process.on(name, onSignal(name));
  const stopRequested = new Promise<string>((resolve) => {
    for (const name of STOP_SIGNALS) {
      signals.addEventListener(name, () => resolve(name), { once: true });
    }
  });
  ignoreHangup(logger);
  // Read before anything starts: a wrong file stops the start with why.
  const countries = options.geoipFile
    ? await openCountries(options.geoipFile).catch((error: Error) => {
        throw new StartupError(error.message);
      })
    : undefined;
  makeAssetsNow([SCRIPT, STYLESHEET, DASHBOARD_SCRIPT, DASHBOARD_STYLES]);
  const store = await openStore({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    limits: options.databaseLimits,
    // A database starting beside the daemon (compose, a loaded machine) is waited for a while.
    startupPatienceMs: options.startupPatienceMs ?? STARTUP_PATIENCE_MS,
    onWaiting: logWaiting(logger),
  });
  const unkept = await dataVolumeWarning(
    options.dataDir ?? DEFAULT_DATA_DIR,
    !options.databaseUrl || !options.blobUrl,
  );
  if (unkept) logger.warn(unkept);
  // Decisions every daemon shares (salts, grants, expiry, idempotency) follow the database's time.
  const databaseTime = followDatabaseTime(store.db, logger);
  await databaseTime.measure().catch(async (error: Error) => {
    await store.close();
    throw new StartupError(`could not read the database's time: ${error.message}`);
  });
  databaseTime.follow();
  const clock = clockFromEnv(process.env, databaseTime.nowMs);
  const blobs = await openCheckedBlobStore(
    { ...options, clockOffsetMs: databaseTime.offsetMs() },
    {
      patienceMs: options.startupPatienceMs ?? STARTUP_PATIENCE_MS,
      onWaiting: logWaiting(logger),
    },
  ).catch(async (error: Error) => {
    databaseTime.stop();
    await store.close();
    throw new StartupError(error.message);
  });
  jobGauge(() => countJobs(store.db));
  mailGauges(() => mailHealth(store.db, clock.now()));
  const notReady = readiness(store, blobs);
  const sweep = startBlobSweep(store, blobs, logger, clock.now()); // in the background: readiness never waits
  let publicUrl = options.publicUrl ?? '';
  // One set of render slots for this process: the workers' documents and the page images
  // readers ask for share the cores (src/pdf/renderSlots.ts).
  const render = renderOptionsFor(options.renderProcesses ?? defaultRenderProcesses());
  renderSlotGauge(() => ({
    running: render.slots.running,
    waiting: render.slots.waiting,
    slots: render.slots.capacity,
  }));
  if (options.sso) {
    for (const name of await missingJoinWorkspaces(options.sso, store)) {
      logger.warn(
        { workspace: name },
        `--oidc-join names no workspace "${name}": no one joins it until it is created`,
      );
    }
  }
  const { http, analytics, tiles, keyUsage } = composeApp({
    store,
    blobs,
    clock,
    log: logger,
    render,
    secret: await installationSecret(store),
    health: { notReady, clockOffsetMs: () => databaseTime.offsetMs() },
    mail: { configured: options.mail !== undefined },
    settings: {
      publicUrl: () => publicUrl,
      ...(options.blobPublicUrl ? { blobPublicUrl: options.blobPublicUrl } : {}),
      rateLimit: options.rateLimit,
      trustProxy: options.trustProxy,
      recordClientInfo: options.recordClientInfo,
      webhookAllowPrivate: options.webhookAllowPrivate ?? false,
      contactEmail: options.contactEmail ?? null,
      ...(options.keyUsageIntervalMs === undefined
        ? {}
        : { keyUsageIntervalMs: options.keyUsageIntervalMs }),
      ...(options.tileCacheBytes === undefined ? {} : { tileCacheBytes: options.tileCacheBytes }),
      ...(options.sso ? { sso: options.sso } : {}),
      ...(countries ? { countries } : {}),
      convertsOffice: options.convert?.office ?? true,
    },
  });
  // Previews left behind by their pull requests (src/app/previewSweep.ts).
  const previewSweep = startPreviewSweep(
    { store, blobs, clock, log: logger },
    options.previewTtlMs ?? DEFAULT_PREVIEW_TTL_MS,
  );
  const server = serveHttpApp(http);
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
    await previewSweep.stop();
    databaseTime.stop();
    await store.close();
    await blobs.close();
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
  const keeper = keepDatabaseAlive(store);
  server.keepAliveTimeout = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  // Node refuses a request whose headers take longer than headersTimeout: it must outlast the
  // keep-alive, or an idle connection reused at the last moment is cut.
  server.headersTimeout = server.keepAliveTimeout + 5_000;
  // Webhook deliveries, like processing, start once the daemon serves.
  analytics.start();
  tiles.start();
  const sender = startWebhookSender(store, logger, clock, {
    allowPrivate: options.webhookAllowPrivate ?? false,
  });
  // Mail too (src/mail/sender.ts); without a server it only deletes finished mails in time.
  const mailSender = startMailSender(store, logger, clock, { settings: options.mail ?? null });
  // Summaries of identified readers' readings, once they end (src/app/readerAlerts.ts).
  const summaries = startReadingSummaries({ store, clock, log: logger });
  // Processing starts once the daemon serves: a daemon that cannot start takes no jobs.
  const workers =
    options.workers > 0
      ? startWorkers(
          {
            store,
            blobs,
            log: logger,
            render,
            clock,
            ...(options.convert ? { convert: options.convert } : {}),
          },
          workerOptions(options.workers),
        )
      : null;
  const { port } = server.address() as AddressInfo;
  // Listening on every address (0.0.0.0, ::, a container's default): a URL with that in it leads
  // nowhere; this machine's own name for itself does, until --public-url says better.
  const wildcard = options.host === '0.0.0.0' || options.host === '::' || options.host === '';
  const host = wildcard
    ? 'localhost'
    : options.host.includes(':')
      ? `[${options.host}]`
      : options.host;
  publicUrl ||= `http://${host}:${port}`;
  // For the admin CLI's links (an invitation): best effort, the daemon serves without it.
  await setMeta(store.db, 'public_url', publicUrl).catch((error) =>
    logger.warn({ err: error }, 'could not record the public URL'),
  );
  logger.info(
    {
      port,
      host: options.host,
      publicUrl,
      store: store.describe,
      blobs: blobs.describe,
      rateLimit: options.rateLimit,
      workers: options.workers,
      renderProcesses: render.slots.capacity,
      // the server without its password; null: no mail is sent
      mail: options.mail ? describeSmtpServer(options.mail.smtp) : null,
      startupMs: Math.round(performance.now() - started),
    },
    `flipbook ready on ${publicUrl}`,
  );

  const signal = await stopRequested;
  const stoppingSince = performance.now();
  const graceMs = signal === 'SIGQUIT' ? 0 : options.graceMs;
  logger.info(
    { signal, graceSeconds: graceMs / 1000 },
    'shutting down: finishing in-flight requests',
  );
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections become idle as their last response ends; close them as they do.
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    // A slow upload may take up to an hour: a stop must not (systemd kills after 90 s).
    const cut = (why: string) => () => {
      logger.warn({ why }, 'shutting down: cutting the connections still open');
      server.closeAllConnections();
    };
    const grace = setTimeout(cut(graceMs === 0 ? signal : 'grace period over'), graceMs);
    // Ctrl-C reaches every process of the terminal's foreground group: under `npm start` the
    // daemon gets it from the terminal and again from npm, which forwards what it gets, a few
    // milliseconds apart. That copy is not a second request; a person's second Ctrl-C comes later.
    const cutNow = cut('second signal');
    const again = () => {
      if (performance.now() - stoppingSince >= SAME_SIGNAL_MS) cutNow();
    };
    for (const name of STOP_SIGNALS) signals.addEventListener(name, again);
    server.once('close', () => {
      clearInterval(idle);
      clearTimeout(grace);
      for (const name of STOP_SIGNALS) signals.removeEventListener(name, again);
    });
  });
  clearInterval(keeper);
  databaseTime.stop();
  // In-flight renders are abandoned and their jobs handed back at once for the next start.
  await workers?.stop();
  await sender.stop();
  await mailSender.stop();
  await summaries.stop();
  // The last reading figures (nothing is lost by a clean stop).
  await analytics.stop();
  await tiles.stop();
  await sweep.stop();
  await previewSweep.stop();
  await keyUsage.settle();
  await store.close();
  await blobs.close();
  logger.info('stopped');
};

/**
 * The embedded PostgreSQL is this daemon's to look after: should it die (killed, crashed), it is
 * started again on its port within seconds, and requests meanwhile get 503s, not a dead daemon
 * that answers 500 until someone restarts it. (An external database is its operator's.)
 */
const keepDatabaseAlive = (store: Awaited<ReturnType<typeof openStore>>) => {
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const up = await withTimeout(store.db.query('SELECT 1'), 2000).then(
        () => true,
        () => false,
      );
      // A server only slow to answer (a loaded machine, a busy pool) is left alone, unsaid.
      if (!up && (await store.revive().catch(() => 'down')) === 'started') {
        logger.warn('the embedded PostgreSQL had stopped: started it again');
      }
    } finally {
      busy = false;
    }
  }, 5000);
  timer.unref();
  return timer;
};
