// Operations: GET /metrics in Prometheus's format (requests by route pattern and status, latency,
// jobs, render seconds per page, webhook attempts), /readyz failing while the blob store is gone
// (the database's case is in test/chaos/operations), /healthz staying liveness, and the
// keep-alive timeout that must outlast a load balancer's idle timeout.
import { rename } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, createFlipbook } from '../support/apiHelpers.ts';
import { waitFor } from '../support/waitFor.ts';

describe('metrics, readiness and keep-alive (embedded store, one worker)', () => {
  let fx: ApiFixture;

  beforeAll(async () => {
    fx = await startApi('embedded', [
      '--workers',
      '1',
      '--render-processes',
      '2',
      '--rate-limit',
      '0',
    ]);
  });
  afterAll(async () => {
    await fx?.stop();
  });

  const metrics = async () => {
    const res = await fetch(`${fx.daemon.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const value = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('counts requests by route pattern and status, jobs, and render time per page', async () => {
    const c = client(fx.api, fx.key);
    const made = await createFlipbook(c);
    await waitFor('the version processed', async () =>
      (await c.status(made.flipbookId, made.versionId)).body.status === 'done' ? true : undefined,
    );
    await c.flipbook(made.flipbookId);
    await c.flipbook('00000000-0000-4000-8000-000000000000');
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
    expect(value(text, 'flipbook_jobs{state="queued"}')).toBe(0);
    expect(value(text, 'flipbook_jobs{state="running"}')).toBe(0);
    expect(value(text, 'flipbook_jobs{state="failed"}')).toBe(0);
    // this daemon's render slots (--render-processes 2 here): idle once the work is done
    expect(value(text, 'flipbook_render_processes{state="slots"}')).toBe(2);
    expect(value(text, 'flipbook_render_processes{state="waiting"}')).toBe(0);
    expect(text).toContain('flipbook_process_resident_memory_bytes');
  });

  it('is not ready while its blob store is gone, and stays alive', async () => {
    expect((await fetch(`${fx.daemon.url}/readyz`)).status).toBe(200);
    const blobs = join(fx.storeArgs[1] as string, 'blobs');
    await rename(blobs, `${blobs}.away`);
    try {
      const res = await fetch(`${fx.daemon.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: 'The blob store is unavailable' });
      expect((await fetch(`${fx.daemon.url}/healthz`)).status).toBe(200);
    } finally {
      await rename(`${blobs}.away`, blobs);
    }
    expect((await fetch(`${fx.daemon.url}/readyz`)).status).toBe(200);
  });

  it('keeps idle connections open longer than a load balancer does (65 s by default)', async () => {
    const header = await new Promise<string | undefined>((resolve, reject) => {
      const req = request(
        `${fx.daemon.url}/healthz`,
        { agent: false, headers: { connection: 'keep-alive' } },
        (res) => {
          res.resume();
          resolve(res.headers['keep-alive'] as string | undefined);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(header).toBe('timeout=65');
  });
});
