// Passwords: argon2id from Node's own crypto (no native package to build), stored as a PHC
// string (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`) so the parameters can be raised later
// and old hashes still verify. The policy follows NIST SP 800-63B: a minimum length, no upper
// limit short of abuse, no composition rules, and a refusal of passwords every attacker tries
// first (the 49,000 most common, from zxcvbn-ts's list).
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { dictionary } from '@zxcvbn-ts/language-common';
import { InvalidInput } from '../../domain/errors.ts';

const argon2Async = promisify(argon2);

export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 256;

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane (about 30 ms here). */
const PARAMS = { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 };

/**
 * A password as typed on one device or another: the same letters may come composed ("é") or
 * decomposed ("e" and an accent) depending on the keyboard, so they are hashed in one form (NFC).
 */
const canonical = (password: string) => password.normalize('NFC');

const common = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));

/** Why a new password is refused, in words a person can act on; null when it is fine. */
export const passwordProblem = (typed: string, email: string): string | null => {
  const password = canonical(typed);
  if (password.trim() === '')
    return 'Choose a password of letters, digits or signs, not only spaces';
  if (password.length < MIN_PASSWORD) {
    return `Choose a password of at least ${MIN_PASSWORD} characters`;
  }
  if (password.length > MAX_PASSWORD) return `A password has at most ${MAX_PASSWORD} characters`;
  const lower = password.toLowerCase();
  if (common.has(lower) || /^(.)\1+$/.test(password)) {
    return 'This password is one of the most common ones, tried first by attackers: choose another';
  }
  if (lower === email.toLowerCase() || lower === email.split('@')[0]?.toLowerCase()) {
    return 'Choose a password that is not your email address';
  }
  return null;
};

export const checkNewPassword = (password: string, email: string) => {
  const problem = passwordProblem(password, email);
  if (problem) throw new InvalidInput(problem);
};

export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(16);
  const hash = await argon2Async('argon2id', {
    message: canonical(password),
    nonce: salt,
    ...PARAMS,
  });
  return `$argon2id$v=19$m=${PARAMS.memory},t=${PARAMS.passes},p=${PARAMS.parallelism}$${b64(salt)}$${b64(hash)}`;
};

/** Whether `password` matches a stored PHC string; false for anything malformed. */
export const verifyPassword = async (password: string, stored: string): Promise<boolean> =>
  (await matches(canonical(password), stored)) ||
  // hashes made before passwords were normalised hold the letters as they were typed
  (canonical(password) !== password && (await matches(password, stored)));

const matches = async (password: string, stored: string): Promise<boolean> => {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(
    stored,
  );
  if (!m) return false;
  const expected = Buffer.from(m[5] as string, 'base64');
  const actual = await argon2Async('argon2id', {
    message: password,
    nonce: Buffer.from(m[4] as string, 'base64'),
    memory: Number(m[1]),
    passes: Number(m[2]),
    parallelism: Number(m[3]),
    tagLength: expected.length,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
};

/**
 * A hash to verify against when the account does not exist, so a wrong email costs the same
 * time as a wrong password (the answer must not tell whether an account exists).
 */
export const decoyHash = (() => {
  let made: Promise<string> | null = null;
  return () => {
    made ??= hashPassword(randomBytes(16).toString('hex'));
    return made;
  };
})();

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
