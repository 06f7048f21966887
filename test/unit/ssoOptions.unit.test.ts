// `serve`'s single sign-on flags: what they let through, and a usage error for the rest.
import { describe, expect, it } from 'vitest';
import { SECRET_ENV, ssoSettingsOf } from '../../src/cli/ssoOptions.ts';

const env = { [SECRET_ENV]: 'the secret' };
const base = { oidcIssuer: 'https://login.example.com/tenant', oidcClientId: 'flipbook' };

describe('single sign-on flags', () => {
  it('are off without an issuer, and read the secret from the environment', () => {
    expect(ssoSettingsOf({}, {})).toBeUndefined();
    expect(
      ssoSettingsOf(
        {
          ...base,
          oidcName: ' Acme ID ',
          oidcJoin: ['Example.COM=acme'],
          oidcDomain: ['acme.example', 'Bücher.example'],
        },
        env,
      ),
    ).toEqual({
      issuer: 'https://login.example.com/tenant',
      clientId: 'flipbook',
      clientSecret: 'the secret',
      name: 'Acme ID',
      domains: new Set(['example.com', 'acme.example', 'xn--bcher-kva.example']),
      joins: new Map([['example.com', 'acme']]),
    });
    // plain http only on this machine (a provider under test)
    expect(
      ssoSettingsOf({ ...base, oidcIssuer: 'http://127.0.0.1:9000', oidcDomain: ['a.io'] }, env)
        ?.issuer,
    ).toBe('http://127.0.0.1:9000');
  });

  it('refuse what cannot work, with the flag named', () => {
    const refused = (
      flags: Parameters<typeof ssoSettingsOf>[0],
      environment: Record<string, string> = env,
    ) => {
      try {
        ssoSettingsOf(flags, environment);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refused({ oidcClientId: 'x' })).toMatch(/need --oidc-issuer/);
    expect(refused({ oidcJoin: ['a.com=x'] })).toMatch(/need --oidc-issuer/);
    expect(refused({ ...base }, {})).toMatch(/FLIPBOOK_OIDC_CLIENT_SECRET/);
    // no domain: a provider's word on every address would be taken
    expect(refused({ ...base })).toMatch(/at least one --oidc-domain/);
    expect(refused({ oidcDomain: ['a.com'] })).toMatch(/need --oidc-issuer/);
    expect(refused({ ...base, oidcDomain: ['*.a.com'] })).toMatch(/--oidc-domain must be/);
    expect(refused({ oidcIssuer: base.oidcIssuer })).toMatch(/needs --oidc-client-id/);
    for (const issuer of [
      'http://login.example.com',
      'ftp://login.example.com',
      'https://login.example.com/?tenant=1',
      'https://user:pass@login.example.com',
      'not a url',
    ]) {
      expect(refused({ ...base, oidcIssuer: issuer, oidcDomain: ['a.io'] }), issuer).toMatch(
        /--oidc-issuer must be/,
      );
    }
    for (const join of ['example.com', '=acme', 'example.com=', 'exa mple.com=acme', 'com=acme']) {
      expect(refused({ ...base, oidcJoin: [join] }), join).toMatch(/--oidc-join must be/);
    }
    expect(refused({ ...base, oidcJoin: ['a.com=x', 'A.com=y'] })).toMatch(/names a.com twice/);
    expect(refused({ ...base, oidcName: 'x'.repeat(61), oidcDomain: ['a.io'] })).toMatch(
      /--oidc-name/,
    );
  });
});
