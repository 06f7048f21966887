// Retries that never duplicate where only a real connection shows it (beyond the spec,
// docs/api.md): an upload sent again with its Idempotency-Key after the connection broke between
// the daemon's commit and the client's read of the 201 gives the first answer again and creates
// nothing; the CLI as a user runs it sends a key, retries a broken upload with it, and publishes
// a slug to one URL. Slugs and keys over HTTP are test/spec/publishOnce.spec.test.ts's, in process.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expectJson,
  type FileSpec,
  form,
  pdf,
  type Reply,
  SMALL_PDF,
  send,
} from '../support/apiHelpers.ts';
import { flipbook } from '../support/cli.ts';
import { CORPUS } from '../support/corpus.ts';
import { useApi } from '../support/useApi.ts';

const OTHER_PDF = 'vec_vector.pdf';

describe('publishing once across a broken connection', () => {
  const fx = useApi('postgres', ['--rate-limit', '0']);

  const upload = (
    path: string,
    file: FileSpec,
    fields: Record<string, string> = {},
    key?: string,
    base = fx.api,
  ) =>
    send(`${base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fx.key}`,
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: form(fields, file),
    });
  const titled = async (title: string) =>
    (await fx.c.list(`search=${encodeURIComponent(title)}&per_page=100`)).body.flipbooks.filter(
      (f: { title: string }) => f.title === title,
    );

  it('gives the first answer to a retry after the connection broke before the 201 was read', async () => {
    const proxy = await cuttingProxy(fx.daemon.url);
    try {
      const key = 'cut-after-commit';
      const viaProxy = `${proxy.url}/api/v1`;
      const cut = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Cut off' }, key, viaProxy)
        .then((reply: Reply) => reply.status)
        .catch((error: Error) => error.name);
      expect(cut).toBe('TypeError'); // fetch failed: no answer
      const retry = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Cut off' }, key, viaProxy);
      expectJson(retry, 201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const made = await titled('Cut off');
      expect(made).toHaveLength(1);
      expect(made[0].id).toBe(retry.body.flipbook_id);
    } finally {
      await proxy.close();
    }
  });

  it('the CLI sends a key, retries a broken upload with it, and publishes a slug to one URL', async () => {
    const proxy = await cuttingProxy(fx.daemon.url);
    try {
      const env = { FLIPBOOK_URL: proxy.url, FLIPBOOK_API_KEY: fx.key };
      const file = join(CORPUS, SMALL_PDF);
      const first = await flipbook(['publish', file, '--title', 'CLI retried', '--json'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/network error .* retrying/);
      expect(await titled('CLI retried')).toHaveLength(1);
      const ids = JSON.parse(first.stdout);
      expect((await titled('CLI retried'))[0].id).toBe(ids.flipbook_id);

      const one = await flipbook(['publish', file, '--slug', 'cli-slug', '--json'], env);
      const two = await flipbook(
        ['publish', join(CORPUS, OTHER_PDF), '--slug', 'cli-slug', '--json'],
        env,
      );
      expect(one.code, one.stderr).toBe(0);
      expect(two.code, two.stderr).toBe(0);
      expect(JSON.parse(two.stdout).url).toBe(JSON.parse(one.stdout).url);
      expect(JSON.parse(two.stdout).flipbook_id).toBe(JSON.parse(one.stdout).flipbook_id);
      const bad = await flipbook(['publish', file, '--slug', 'Not A Slug'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--slug: Invalid slug/);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});

/**
 * A proxy to `target` that passes the first request on and cuts its client off at the first
 * byte of the answer (the server has committed, the client never hears); later ones pass.
 */
const cuttingProxy = async (target: string) => {
  let cutNext = true;
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((inbound: Socket) => {
    const to = new URL(target);
    const outbound = connect(Number(to.port), to.hostname);
    sockets.add(inbound).add(outbound);
    inbound.pipe(outbound);
    outbound.on('data', (chunk) => {
      if (cutNext) {
        cutNext = false;
        inbound.destroy();
        outbound.destroy();
        return;
      }
      inbound.write(chunk);
    });
    outbound.on('end', () => inbound.end());
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy(); // clients keep their connections alive
      await new Promise((r) => proxy.close(r));
    },
  };
};
