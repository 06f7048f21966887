// A real OpenID Connect provider for the single sign-on tests: `oidc-provider` (the certified
// Node implementation) on a loopback port, with its development sign-in pages, where any login
// and password sign in. The login names the person: `mia@example.com` is vouched for with a
// verified email, `unverified:mia@example.com` with the same email not verified.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const CLIENT_ID = 'flipbook';
export const CLIENT_SECRET = 'the client secret of the flipbook service, for the tests';

export type OidcProvider = {
  issuer: string;
  /** opens the provider to a daemon's callback (the client's one redirect URI) */
  allow: (redirectUri: string) => void;
  /**
   * The next redirect back to the daemon is not sent: the browser gets a plain page instead, and
   * the promise the URL it would have gone to (to send it by hand, or twice).
   */
  holdNextCallback: () => Promise<string>;
  /** While down, every connection is cut before an answer (a provider away). */
  setDown: (down: boolean) => void;
  close: () => Promise<void>;
};

const accountOf = (login: string) => {
  const unverified = login.startsWith('unverified:');
  const email = unverified ? login.slice('unverified:'.length) : login;
  return {
    accountId: login,
    claims: () => ({ sub: login, email, email_verified: !unverified }),
  };
};

/** Listens first (the daemon needs the issuer's address); answers once `allow` names the client. */
export const startOidcProvider = async (): Promise<OidcProvider> => {
  let held: ((url: string) => void) | null = null;
  let down = false;
  let handler: RequestListener = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = createServer((req, res) => (down ? req.socket.destroy() : handler(req, res)));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    allow: (redirectUri) => {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        findAccount: (_ctx, id) => accountOf(id),
        cookies: { keys: ['a cookie key of the test provider'] },
        features: { devInteractions: { enabled: true } },
      });
      provider.use(async (ctx, next) => {
        await next();
        const location = ctx.response.get('location');
        if (held && ctx.status >= 300 && ctx.status < 400 && location.startsWith(redirectUri)) {
          held(location);
          held = null;
          ctx.status = 200;
          ctx.remove('location');
          ctx.type = 'text/html';
          ctx.body = '<!doctype html><title>held</title><p>Held by the test.</p>';
        }
      });
      handler = provider.callback();
    },
    setDown: (value) => {
      down = value;
    },
    holdNextCallback: () =>
      new Promise<string>((resolve) => {
        held = resolve;
      }),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
