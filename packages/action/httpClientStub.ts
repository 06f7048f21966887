// Stands in for @actions/http-client, which @actions/core imports only for getIDToken (OIDC): the
// action never asks for an ID token, and the real one brings a second undici (6.x, beside the
// client's 7.x), half the bundle's size (packages/action/build.ts).
const notBundled = () => {
  throw new Error('@actions/http-client is not bundled in the flipbook action (no OIDC token)');
};

export class HttpClient {
  constructor() {
    notBundled();
  }
}

export class BearerCredentialHandler {
  constructor() {
    notBundled();
  }
}
