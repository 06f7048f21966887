// Apart from sso.ts so that `serve`'s flags can check --oidc-issuer without loading the
// OpenID Connect client (and every command's start with it).

/** Plain HTTP only to this machine (a provider under test); anywhere else HTTPS. */
export const isLoopbackUrl = (url: URL) =>
  ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
