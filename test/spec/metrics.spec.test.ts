// Operations: GET /metrics in Prometheus's format (requests by route pattern and status, latency,
// render seconds per page, the process's own figures), /readyz failing while the blob store is
// gone (the database's case is in test/chaos/operations), /healthz staying liveness. The whole app
// in process (test/support/appSpec.ts) with one processing lane; the gauges the daemon registers
// (jobs, render slots) and its keep-alive timeout are test/e2e/metricsDaemon.e2e.test.ts's.
import { rename } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createFlipbook } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import { appFetch } from '../support/inProcess.ts';
import { metricsOf, seriesValue } from '../support/metricsText.ts';
import { waitFor } from '../support/waitFor.ts';

describe('metrics and readiness (one worker)', () => {
  const app = useApp({ workers: 1 });

  const metrics = () => metricsOf(app.base);
  const value = seriesValue;

  it('counts requests by route pattern and status, and render time per page', async () => {
    const made = await createFlipbook(app.c);
    await waitFor('the version processed', async () =>
      (await app.c.status(made.flipbookId, made.versionId)).body.status === 'done'
        ? true
        : undefined,
    );
    await app.c.flipbook(made.flipbookId);
    await app.c.flipbook('00000000-0000-4000-8000-000000000000');
    const text = await metrics();
    expect(
      value(
        text,
        'flipbook_http_requests_total{route="/api/v1/flipbooks",method="POST",status="201"}',
      ),
    ).toBe(1);
    expect(
      value(
        text,
        'flipbook_http_requests_total{route="/api/v1/flipbooks/:id",method="GET",status="200"}',
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(
        text,
        'flipbook_http_requests_total{route="/api/v1/flipbooks/:id",method="GET",status="404"}',
      ),
    ).toBe(1);
    // The route's pattern, never the URL a client sent: no id ever becomes a label.
    expect(text).not.toContain(made.flipbookId);
    expect(text).toContain('flipbook_http_request_duration_seconds_bucket{le="0.005",route=');
    expect(value(text, 'flipbook_render_seconds_per_page_count')).toBe(1);
    expect(text).toContain('flipbook_process_resident_memory_bytes');
  });

  it('is not ready while its blob store is gone, and stays alive', async () => {
    expect((await appFetch(`${app.base}/readyz`)).status).toBe(200);
    if (app.blobPlace.kind !== 'dir') throw new Error('the blobs are in a folder here');
    const blobs = app.blobPlace.dir;
    await rename(blobs, `${blobs}.away`);
    try {
      const res = await appFetch(`${app.base}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: 'The blob store is unavailable' });
      expect((await appFetch(`${app.base}/healthz`)).status).toBe(200);
    } finally {
      await rename(`${blobs}.away`, blobs);
    }
    expect((await appFetch(`${app.base}/readyz`)).status).toBe(200);
  });
});
