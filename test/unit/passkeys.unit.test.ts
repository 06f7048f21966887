// Passkeys' pure rules: the relying party a public URL makes, credential ids, names, challenge
// expiry, the shape of the browser's answers, the JSON body reader and where `next` may lead.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  authenticationResponse,
  registrationResponse,
} from '../../src/app/accounts/passkeyResponses.ts';
import type { SignedIn } from '../../src/app/accounts/sessions.ts';
import { readJson } from '../../src/dashboard/json.ts';
import { passkeysSection } from '../../src/dashboard/pages/passkeys.ts';
import { safeNext } from '../../src/dashboard/request.ts';
import {
  challengeLive,
  isCredentialId,
  MAX_PASSKEY_NAME,
  passkeyName,
  relyingParty,
} from '../../src/domain/user/passkey.ts';
import type { PasskeyRow } from '../../src/readTables/passkeys.ts';

const ID = 'AbCdEfGhIjKlMnOpQrStUv_-0123456789';

describe('the relying party', () => {
  it('is the public URL’s host and origin', () => {
    expect(relyingParty('http://localhost:8080')).toEqual({
      usable: true,
      id: 'localhost',
      origin: 'http://localhost:8080',
      name: 'Flipbooks',
    });
    expect(relyingParty('https://books.example.com/base/')).toMatchObject({
      usable: true,
      id: 'books.example.com',
      origin: 'https://books.example.com',
    });
    expect(relyingParty('https://Books.Example.com:8443')).toMatchObject({
      id: 'books.example.com',
      origin: 'https://books.example.com:8443',
    });
  });

  it('cannot be an IP address, nor plain http off localhost, and says why', () => {
    for (const url of ['http://127.0.0.1:8080', 'https://[::1]:8443', 'https://10.0.0.7']) {
      const rp = relyingParty(url);
      expect(rp.usable, url).toBe(false);
      expect(rp.usable ? '' : rp.why).toContain('domain name');
    }
    const plain = relyingParty('http://books.example.com');
    expect(plain.usable ? '' : plain.why).toContain('https');
    expect(relyingParty('http://app.localhost:3000').usable).toBe(true);
  });
});

describe('passkey rules', () => {
  it('takes base64url credential ids of a plausible length only', () => {
    expect(isCredentialId(ID)).toBe(true);
    expect(isCredentialId('A'.repeat(1364))).toBe(true);
    expect(isCredentialId('A'.repeat(1365))).toBe(false);
    expect(isCredentialId('short')).toBe(false);
    expect(isCredentialId(`${ID}=`)).toBe(false);
    expect(isCredentialId(`${ID}/+`)).toBe(false);
    expect(isCredentialId(42)).toBe(false);
  });

  it('names a passkey as given, folded and cut, or after the browser', () => {
    expect(passkeyName('  Work   laptop ', 'Chrome on Linux')).toBe('Work laptop');
    expect(passkeyName('Phone\n\t\u0000two', 'x')).toBe('Phone two');
    // A right-to-left override would show the name as another.
    expect(passkeyName('abc\u202Eevil', 'x')).toBe('abc evil');
    expect(passkeyName('', 'Chrome on Linux')).toBe('Chrome on Linux');
    expect(passkeyName(undefined, 'Chrome on Linux')).toBe('Chrome on Linux');
    expect(passkeyName(' \u200F ', 'Firefox on macOS')).toBe('Firefox on macOS');
    // Cut by characters, never in the middle of one (an emoji is two UTF-16 units).
    const long = passkeyName('🔑'.repeat(100), 'x');
    expect(Array.from(long)).toHaveLength(MAX_PASSKEY_NAME);
    expect(long.isWellFormed()).toBe(true);
    expect(passkeyName('\uD800 lone', 'x')).toBe('\uFFFD lone');
    expect(() => passkeyName(42, 'x')).toThrow('must be text');
  });

  it('keeps a challenge until its expiry, on the clock given', () => {
    const expires = new Date('2026-11-23T12:05:00Z');
    expect(challengeLive(expires, new Date('2026-11-23T12:04:59Z'))).toBe(true);
    expect(challengeLive(expires, expires)).toBe(false);
  });
});

describe('the browser’s answers', () => {
  /** What a registration needs, as the server keeps it. */
  const kept = {
    id: ID,
    rawId: ID,
    type: 'public-key',
    authenticatorAttachment: 'platform',
    clientExtensionResults: { credProps: { rk: true } },
    response: {
      clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0',
      attestationObject: 'o2NmbXRkbm9uZQ',
      transports: ['internal', 'hybrid'],
    },
  };
  /** The same as a browser may send it: with fields of its own and transports we do not know. */
  const registration = {
    ...kept,
    response: {
      ...kept.response,
      transports: ['internal', 'hybrid', 42, 'NOT A TRANSPORT'],
      extra: 'dropped',
    },
    extra: 'dropped',
  };

  it('keeps what a registration needs, and only that', () => {
    expect(registrationResponse(registration)).toEqual(kept);
  });

  it('refuses anything shaped otherwise, in words', () => {
    const broken = [
      null,
      'text',
      [],
      { ...registration, type: 'password' },
      { ...registration, rawId: 'AAAAAAAAAAAAAAAAAAAAAA' },
      { ...registration, id: 'short', rawId: 'short' },
      { ...registration, response: null },
      { ...registration, response: { ...registration.response, clientDataJSON: 12 } },
      { ...registration, response: { ...registration.response, attestationObject: 'a b' } },
    ];
    for (const value of broken) {
      expect(() => registrationResponse(value), JSON.stringify(value)).toThrow('not a passkey’s');
    }
  });

  it('keeps what an assertion needs, the user handle when there is one', () => {
    const assertion = {
      id: ID,
      rawId: ID,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0',
        authenticatorData: 'SZYN5YgO',
        signature: 'MEUCIQ',
        userHandle: 'dXNlcg',
      },
    };
    expect(authenticationResponse(assertion).response).toEqual(assertion.response);
    const noHandle = { ...assertion, response: { ...assertion.response, userHandle: null } };
    expect(authenticationResponse(noHandle).response.userHandle).toBeUndefined();
    const badSignature = { ...assertion, response: { ...assertion.response, signature: {} } };
    expect(() => authenticationResponse(badSignature)).toThrow('not a passkey’s');
    const longHandle = {
      ...assertion,
      response: { ...assertion.response, userHandle: 'A'.repeat(200) },
    };
    expect(() => authenticationResponse(longHandle)).toThrow('not a passkey’s');
  });
});

describe('JSON bodies', () => {
  const body = (text: string, headers: Record<string, string> = {}) =>
    Object.assign(Readable.from([Buffer.from(text)]), {
      headers: { 'content-type': 'application/json', ...headers },
    }) as unknown as IncomingMessage;
  const status = (promise: Promise<unknown>) =>
    promise.then(
      () => 200,
      (error: { status: number }) => error.status,
    );

  it('reads an object of at most 64 KB sent as application/json', async () => {
    expect(await readJson(body('{"name":"Phone"}'))).toEqual({ name: 'Phone' });
    expect(
      await readJson(body('{}', { 'content-type': 'Application/JSON; charset=utf-8' })),
    ).toEqual({});
    expect(await status(readJson(body('{}', { 'content-type': 'text/plain' })))).toBe(415);
    expect(await status(readJson(body('{}', { 'content-length': '70000' })))).toBe(413);
    expect(await status(readJson(body(`{"a":"${'x'.repeat(70_000)}"}`)))).toBe(413);
    expect(await status(readJson(body('{"a":')))).toBe(400);
    expect(await status(readJson(body('[1,2]')))).toBe(400);
    expect(await status(readJson(body('null')))).toBe(400);
  });
});

describe('where a sign-in goes next', () => {
  it('is a path of this site only', () => {
    expect(safeNext('/dashboard/keys?x=1')).toBe('/dashboard/keys?x=1');
    for (const next of ['//evil.example', 'https://evil.example', '/\\evil', 'dashboard', '']) {
      expect(safeNext(next), next).toBeNull();
    }
    expect(safeNext(`/${'a'.repeat(600)}`)).toBeNull();
    expect(safeNext(null)).toBeNull();
  });
});

describe('the profile’s passkeys section', () => {
  const signedIn = { csrfToken: 'token-1' } as SignedIn;
  const passkey: PasskeyRow = {
    credential_id: ID,
    user_id: '00000000-0000-4000-8000-000000000001',
    workspace_id: '00000000-0000-4000-8000-000000000002',
    name: '<b>Work</b> laptop',
    public_key: 'pQECAyYgASFYIA',
    transports: ['internal'],
    device_type: 'multiDevice',
    backed_up: true,
    created_at: '2026-11-23T12:00:00Z',
    counter: 0,
    last_used_at: null,
  };

  it('lists passkeys escaped, with Remove, and the form that needs a script', () => {
    const text = passkeysSection(signedIn, [passkey], relyingParty('http://localhost:8080')).text;
    expect(text).toContain('&lt;b&gt;Work&lt;/b&gt; laptop');
    expect(text).toContain('Synced');
    expect(text).toContain('Never');
    expect(text).toContain(`href="/dashboard/passkeys/${ID}/remove"`);
    expect(text).toContain('<button type="submit" class="primary passkey-add-button" disabled>');
    expect(text).toContain('needs JavaScript');
    expect(text).toContain('value="token-1"');
  });

  it('says why passkeys cannot be added on an IP address, and offers no form', () => {
    const text = passkeysSection(signedIn, [], relyingParty('http://127.0.0.1:8080')).text;
    expect(text).toContain('No passkeys yet.');
    expect(text).toContain('need this service to be reached by a domain name');
    expect(text).not.toContain('Add passkey');
  });
});
