// The whole HTTP application (API, reader, dashboard, files, beacons, downloads, health), built
// from what it is given: store, blobs, clock, settings, render slots. No port, no signal, no
// worker: `runDaemon` (./daemon.ts) keeps those, and the tests' harness (test/support/appSpec.ts)
// hands the same app requests made in process. Nothing here starts a process or a timer; the
// parts that run in the background (figures written every half second, the tile cache's passes,
// keys' "last used") are handed back for their owner to start and stop.

import { createSso, type SsoSettings } from './app/accounts/sso.ts';
import { openAnalytics } from './app/analytics/analytics.ts';
import type { Countries } from './app/analytics/countries.ts';
import type { Clock } from './app/clock.ts';
import { DEFAULT_KEY_USAGE_INTERVAL_MS, keyUsageRecorder } from './app/keyUsage.ts';
import { previewLinksSignedWith } from './app/previewLinks.ts';
import { accessWith } from './app/readerAccess.ts';
import { stampedDownloads } from './app/stampedDownloads.ts';
import { DEFAULT_TILE_CACHE_BYTES, tileCache } from './app/tileCache.ts';
import { urlsFor } from './app/urls.ts';
import type { BlobStore } from './blobs/blobStore.ts';
import { mountDashboard } from './dashboard/routes.ts';
import { apiBodyPolicy, mountApi } from './http/api.ts';
import { discardBody } from './http/bodyLimit.ts';
import { mountDownloads } from './http/downloads.ts';
import { mountFiles } from './http/files.ts';
import { createRateLimiter } from './http/rateLimit.ts';
import { sendError, sendJson } from './http/respond.ts';
import { createHttpApp, type HttpApp } from './http/server.ts';
import type { Logger } from './log.ts';
import type { MailStatus } from './mail/mailSettings.ts';
import { registry } from './metrics.ts';
import type { RenderOptions } from './pdf/renderPdf.ts';
import { mountBeacon } from './reader/beaconRoute.ts';
import { mountReader } from './reader/readerRoutes.ts';
import { requestBudgetMs } from './store/databaseLimits.ts';
import type { Store } from './store/store.ts';

/** What an operator sets (serve's flags), as the app reads them. */
export type AppSettings = {
  /** the base of every absolute URL; read on each use (a daemon learns its port after listening) */
  publicUrl: () => string;
  /** page images are addressed here (a CDN or a public bucket) instead of /files/pages */
  blobPublicUrl?: string;
  /** API requests per minute per client address; 0: no limit */
  rateLimit: number;
  trustProxy: boolean;
  /** client addresses and user agents in events' metadata */
  recordClientInfo: boolean;
  webhookAllowPrivate: boolean;
  contactEmail: string | null;
  /** at most one "last used" write per key per this many ms */
  keyUsageIntervalMs?: number;
  tileCacheBytes?: number;
  sso?: SsoSettings;
  countries?: Countries;
  /** office documents are taken (converted by processing); false: --no-convert, no LibreOffice */
  convertsOffice?: boolean;
};

export type AppDeps = {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  log: Logger;
  /** the process's render slots, shared with its workers */
  render: RenderOptions;
  /** the installation's signing secret (src/app/readerAccess.ts, installationSecret) */
  secret: string;
  settings: AppSettings;
  /** /readyz: why the service cannot do its work now, or null; the clock's offset to report */
  health: { notReady: () => Promise<string | null>; clockOffsetMs: () => number };
  /** whether a mail server was given (serve --smtp-url): without one, nothing that needs mail */
  mail: MailStatus;
};

export type App = {
  /** node:http's listeners: attach them to a server, or hand them requests */
  http: HttpApp;
  /** reading figures: `start` writes them every half second, `stop` writes the last */
  analytics: ReturnType<typeof openAnalytics>;
  /** deep-zoom tiles' budget: `start` runs the eviction passes */
  tiles: ReturnType<typeof tileCache>;
  /** keys' "last used": `settle` waits for the writes under way */
  keyUsage: ReturnType<typeof keyUsageRecorder>;
};

export const composeApp = (deps: AppDeps): App => {
  const { store, blobs, clock, log, render, settings } = deps;
  // Preview addresses signed with the installation's secret (src/app/previewLinks.ts).
  const previewLinks = previewLinksSignedWith(deps.secret);
  const urls = urlsFor(settings.publicUrl, settings.blobPublicUrl, previewLinks.tokenOf);
  const keyUsage = keyUsageRecorder(store.db, {
    intervalMs: settings.keyUsageIntervalMs ?? DEFAULT_KEY_USAGE_INTERVAL_MS,
    onError: (error, keyId) =>
      log.warn({ err: error, keyId }, 'could not record when an API key was last used'),
    clock,
  });
  const limiter = createRateLimiter(store.db, {
    clock,
    limit: settings.rateLimit,
    trustProxy: settings.trustProxy,
  });
  // Deep-zoom tiles within their budget, the least recently used evicted (src/app/tileCache.ts).
  const tiles = tileCache(
    { db: store.db, blobs },
    { budgetBytes: settings.tileCacheBytes ?? DEFAULT_TILE_CACHE_BYTES, log },
  );
  // Reading grants for non-public books, signed with the installation's secret (readerAccess.ts).
  const access = accessWith(store, clock, deps.secret, deps.mail.configured);
  // Downloads stamped with their reader, kept for the next (src/app/stampedDownloads.ts).
  const stamped = stampedDownloads(blobs);
  // Reader analytics (docs/privacy.md): beacons counted in memory, written every half second.
  const analytics = openAnalytics({
    store,
    clock,
    secret: deps.secret,
    ownHosts: () => {
      const base = settings.publicUrl();
      return URL.canParse(base) ? [new URL(base).hostname] : [];
    },
    log,
    ...(settings.countries ? { countries: settings.countries } : {}),
  });
  const http = createHttpApp(
    log,
    (routes) => {
      // Liveness: the process serves (a supervisor restarts one that does not). Readiness: it can
      // do its work, the database and the blob store answer (a load balancer takes a daemon that
      // cannot out of rotation, without restarting it).
      routes.get('/healthz', async (_req, res) => sendJson(res, 200, { status: 'ok' }));
      routes.get('/readyz', async (_req, res) => {
        const problem = await deps.health.notReady();
        if (problem) sendError(res, 503, problem);
        // How far this machine's clock is from the database's, which decisions follow.
        else sendJson(res, 200, { status: 'ready', clock_offset_ms: deps.health.clockOffsetMs() });
      });
      routes.get('/metrics', async (_req, res) => {
        const text = await registry.metrics();
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(text);
      });
      mountApi(routes, {
        store,
        blobs,
        urls,
        log,
        keyUsage,
        clock,
        webhookAllowPrivate: settings.webhookAllowPrivate,
        contactEmail: settings.contactEmail,
        mailConfigured: deps.mail.configured,
        secret: deps.secret,
        stamped,
        convertsOffice: settings.convertsOffice ?? true,
      });
      mountFiles(routes, { db: store.db, blobs, render, access, tiles, stamped });
      mountDownloads(routes, { log });
      mountBeacon(routes, { analytics, trustProxy: settings.trustProxy, log });
      mountReader(routes, {
        analytics,
        db: store.db,
        blobs,
        urls,
        access,
        trustProxy: settings.trustProxy,
      });
      mountDashboard(routes, {
        store,
        blobs,
        urls,
        log,
        clock,
        publicUrl: settings.publicUrl,
        trustProxy: settings.trustProxy,
        secret: deps.secret,
        mailConfigured: deps.mail.configured,
        convertsOffice: settings.convertsOffice ?? true,
        ...(settings.sso ? { sso: createSso(settings.sso, { store, clock, log }) } : {}),
      });
    },
    async (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (!path.startsWith('/api/v1/') && path !== '/api/v1') return;
      await limiter.check(req, res);
      if (apiBodyPolicy(req.method, path) === 'none') await discardBody(req);
    },
    { trustProxy: settings.trustProxy, recordClientInfo: settings.recordClientInfo },
    // 9 s by default: with the rest of the work, a request answers within the documented 10 s
    // (docs/deploy.md) however many statements it runs.
    store.limits.statementMs === null ? undefined : requestBudgetMs(store.limits.statementMs),
  );
  return { http, analytics, tiles, keyUsage };
};
