// GET /downloads/flipbook-cli.tgz: the publishing client of this server's own version, as the
// package tarball `npm pack` makes (packages/cli/build.ts), so any pipeline installs it with
// `npm install -g <server>/downloads/flipbook-cli.tgz`: no registry, no account. Built on the
// first request (esbuild, well under a second) and kept in memory; never at start, so daemons
// that nobody asks for it spend nothing on it.
import { createHash } from 'node:crypto';
import fresh from 'fresh';
import { packClient } from '../../packages/cli/build.ts';
import { CLIENT_VERSION } from '../../packages/cli/src/version.ts';
import type { Logger } from '../log.ts';
import type { Routes } from './server.ts';

type Tarball = { bytes: Buffer; etag: string };

export const mountDownloads = (routes: Routes, deps: { log: Logger }) => {
  let tarball: Promise<Tarball> | null = null;
  const built = () => {
    tarball ??= packClient().then(
      (bytes) => ({ bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url')}"` }),
      (error: unknown) => {
        tarball = null; // a later request tries again
        deps.log.error({ err: error }, 'could not build the client package');
        throw error;
      },
    );
    return tarball;
  };

  routes.get('/downloads/flipbook-cli.tgz', async (req, res) => {
    const { bytes, etag } = await built();
    const headers = {
      ETag: etag,
      // A server upgrade changes it: always revalidated, never stale.
      'Cache-Control': 'public, no-cache',
      'X-Content-Type-Options': 'nosniff',
    };
    if (fresh({ ...req.headers, 'cache-control': undefined }, { etag })) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'application/gzip',
      'Content-Length': bytes.length,
      'Content-Disposition': `attachment; filename="flipbook-cli-${CLIENT_VERSION}.tgz"`,
    });
    res.end(bytes);
  });
};
