// What a browser sends back from a passkey ceremony, checked for shape before the verifier sees
// it: a body is anyone's JSON, and @simplewebauthn/server expects strings where strings belong.
// Anything else is refused in words, never a crash deeper down.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { InvalidInput } from '../../domain/errors.ts';
import { isCredentialId } from '../../domain/user/passkey.ts';

const MALFORMED = 'The browser’s answer is not a passkey’s: try again';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isBase64Url = (value: unknown, max = 64 * 1024): value is string =>
  typeof value === 'string' && value.length <= max && /^[A-Za-z0-9_-]*={0,2}$/.test(value);

/** The common part: `id` and `rawId` one credential id, type `public-key`. */
const credentialPart = (value: unknown) => {
  if (!isObject(value) || value.type !== 'public-key') throw new InvalidInput(MALFORMED);
  if (!isCredentialId(value.id) || value.rawId !== value.id) throw new InvalidInput(MALFORMED);
  if (!isObject(value.response) || !isBase64Url(value.response.clientDataJSON)) {
    throw new InvalidInput(MALFORMED);
  }
  const extensions = isObject(value.clientExtensionResults) ? value.clientExtensionResults : {};
  const attachment =
    value.authenticatorAttachment === 'platform' ||
    value.authenticatorAttachment === 'cross-platform'
      ? (value.authenticatorAttachment as 'platform' | 'cross-platform')
      : undefined;
  return {
    id: value.id,
    rawId: value.id,
    type: 'public-key' as const,
    response: value.response,
    clientExtensionResults: extensions,
    ...(attachment ? { authenticatorAttachment: attachment } : {}),
  };
};

/** navigator.credentials.create()'s answer, as @simplewebauthn/browser serialises it. */
export const registrationResponse = (value: unknown): RegistrationResponseJSON => {
  const part = credentialPart(value);
  const r = part.response;
  if (!isBase64Url(r.attestationObject)) throw new InvalidInput(MALFORMED);
  const transports = Array.isArray(r.transports)
    ? r.transports.filter((t): t is string => typeof t === 'string' && /^[a-z-]{1,32}$/.test(t))
    : [];
  return {
    ...part,
    response: {
      clientDataJSON: r.clientDataJSON as string,
      attestationObject: r.attestationObject,
      transports: transports.slice(0, 8) as RegistrationResponseJSON['response']['transports'],
    },
  };
};

/** navigator.credentials.get()'s answer. */
export const authenticationResponse = (value: unknown): AuthenticationResponseJSON => {
  const part = credentialPart(value);
  const r = part.response;
  if (!isBase64Url(r.authenticatorData) || !isBase64Url(r.signature)) {
    throw new InvalidInput(MALFORMED);
  }
  if (r.userHandle !== undefined && r.userHandle !== null && !isBase64Url(r.userHandle, 128)) {
    throw new InvalidInput(MALFORMED);
  }
  return {
    ...part,
    response: {
      clientDataJSON: r.clientDataJSON as string,
      authenticatorData: r.authenticatorData,
      signature: r.signature,
      ...(typeof r.userHandle === 'string' && r.userHandle ? { userHandle: r.userHandle } : {}),
    },
  };
};
