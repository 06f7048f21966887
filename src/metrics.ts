// The daemon's metrics, in Prometheus's text format at GET /metrics (prom-client: the de facto
// Node client, with the process's own CPU, memory and event-loop metrics for free). One registry
// per process. Labels are bounded: an HTTP route is its pattern (`/api/v1/flipbooks/:id`), never
// the URL a client sent, so a client cannot grow the series.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'flipbook_' });

/** A count of what happened, by these labels, on this process's registry. */
const counter = <Label extends string>(name: string, help: string, labelNames: readonly Label[]) =>
  new Counter({ name, help, labelNames, registers: [registry] });

export const httpRequests = counter(
  'flipbook_http_requests_total',
  'HTTP requests answered, by route pattern, method and status',
  ['route', 'method', 'status'],
);

export const httpDuration = new Histogram({
  name: 'flipbook_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by route pattern and method',
  labelNames: ['route', 'method'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const renderSecondsPerPage = new Histogram({
  name: 'flipbook_render_seconds_per_page',
  help: 'Wall time of processing a version divided by its pages (all three renditions)',
  buckets: [0.05, 0.1, 0.2, 0.4, 0.8, 1.5, 3, 6, 12],
  registers: [registry],
});

export const blobStoreErrors = counter(
  'flipbook_blob_store_errors_total',
  'Operations on the blob store that failed, by operation',
  ['operation'],
);

export const webhookDeliveries = counter(
  'flipbook_webhook_delivery_attempts_total',
  'Webhook delivery attempts, by outcome (delivered, retry, failed, cancelled)',
  ['outcome'],
);

export const beacons = counter(
  'flipbook_beacons_total',
  'Reader beacons answered 202, by outcome: counted, dropped (a robot, Do Not Track, a token not ours), lost (could not be counted: the database away)',
  ['outcome'],
);

/** Jobs by state, read from the database when scraped (every daemon and worker shares them). */
export const jobGauge = (read: () => Promise<Record<string, number>>) =>
  new Gauge({
    name: 'flipbook_jobs',
    help: 'Processing jobs by state (queued, running, failed), across every process',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await read().catch(() => null);
      if (!counts) return;
      for (const state of ['queued', 'running', 'failed']) this.set({ state }, counts[state] ?? 0);
    },
  });

/** This process's render slots when scraped: renderer processes running and requests waiting. */
export const renderSlotGauge = (read: () => { running: number; waiting: number; slots: number }) =>
  new Gauge({
    name: 'flipbook_render_processes',
    help: 'Renderer processes of this process: running now, waiting for a slot, and its slots',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const now = read();
      this.set({ state: 'running' }, now.running);
      this.set({ state: 'waiting' }, now.waiting);
      this.set({ state: 'slots' }, now.slots);
    },
  });

export const mailAttempts = counter(
  'flipbook_mail_attempts_total',
  'Attempts to hand a mail to the mail server, by outcome (sent, retry, failed)',
  ['outcome'],
);

/** The mail outbox when scraped, across every daemon: mails waiting and given up, the oldest's wait. */
export const mailGauges = (
  read: () => Promise<{ queued: number; failed: number; oldestQueuedSeconds: number | null }>,
) => {
  type Figures = { queued: number; failed: number; oldestQueuedSeconds: number | null } | null;
  // One read serves both gauges of a scrape (each collects on its own): kept for a second.
  let last: { at: number; figures: Promise<Figures> } | null = null;
  const reading = () => {
    if (!last || performance.now() - last.at > 1_000) {
      last = { at: performance.now(), figures: read().catch(() => null) };
    }
    return last.figures;
  };
  new Gauge({
    name: 'flipbook_mail_messages',
    help: 'Mails in the outbox by state: queued (not sent yet), failed (given up, kept 30 days)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const now = await reading();
      if (!now) return;
      this.set({ state: 'queued' }, now.queued);
      this.set({ state: 'failed' }, now.failed);
    },
  });
  new Gauge({
    name: 'flipbook_mail_oldest_queued_seconds',
    help: 'How long the oldest mail not sent yet has waited (0: none waits); a growing value means mail is failing',
    registers: [registry],
    async collect() {
      const now = await reading();
      if (now) this.set(now.oldestQueuedSeconds ?? 0);
    },
  });
};
