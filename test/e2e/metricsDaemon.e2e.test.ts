// What only the daemon shows of its operations: the gauges it registers in /metrics (jobs across
// every process, this process's render slots from --render-processes), and the keep-alive timeout
// that must outlast a load balancer's idle timeout. Requests, latency, render time per page and
// readiness are test/spec/metrics.spec.test.ts's.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, createFlipbook } from '../support/apiHelpers.ts';
import { metricsOf, seriesValue } from '../support/metricsText.ts';
import { waitFor } from '../support/waitFor.ts';

describe("the daemon's gauges and keep-alive (embedded store, one worker)", () => {
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

  const metrics = () => metricsOf(fx.daemon.url);
  const value = seriesValue;

  it('reports jobs and its render slots, idle once the work is done', async () => {
    const c = client(fx.api, fx.key);
    const made = await createFlipbook(c);
    await waitFor('the version processed', async () =>
      (await c.status(made.flipbookId, made.versionId)).body.status === 'done' ? true : undefined,
    );
    const text = await metrics();
    expect(value(text, 'flipbook_jobs{state="queued"}')).toBe(0);
    expect(value(text, 'flipbook_jobs{state="running"}')).toBe(0);
    expect(value(text, 'flipbook_jobs{state="failed"}')).toBe(0);
    // this daemon's render slots (--render-processes 2 here): idle once the work is done
    expect(value(text, 'flipbook_render_processes{state="slots"}')).toBe(2);
    expect(value(text, 'flipbook_render_processes{state="waiting"}')).toBe(0);
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
