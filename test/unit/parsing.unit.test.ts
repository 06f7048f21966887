// Pure parsing and validation used by the API: each input class, accepted and refused.

import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseActivateFlag } from '../../src/domain/activateFlag.ts';
import {
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  sameHash,
} from '../../src/domain/apiKey.ts';
import { InvalidInput, RuleBroken } from '../../src/domain/errors.ts';
import { checkFlipbookCount, checkPageCount, checkUploadSize } from '../../src/domain/plans.ts';
import { slugify } from '../../src/domain/slug.ts';
import { isUuid } from '../../src/domain/uuid.ts';
import { parseListQuery } from '../../src/http/listQuery.ts';
import { clientAddress } from '../../src/http/rateLimit.ts';

const query = (text: string) => parseListQuery(new URLSearchParams(text));

describe('list query', () => {
  it('has the spec defaults', () => {
    expect(query('')).toEqual({
      page: 1,
      perPage: 20,
      search: null,
      status: null,
      sort: 'created_at',
      dir: 'desc',
    });
  });

  it('takes every valid value', () => {
    expect(
      query('page=3&per_page=100&search=%20Cat%20&status=ARCHIVED&sort=title&dir=ASC'),
    ).toEqual({
      page: 3,
      perPage: 100,
      search: 'Cat',
      status: 'archived',
      sort: 'title',
      dir: 'asc',
    });
  });

  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['page=abc', 'page'],
    ['page=', 'page'],
    ['per_page=0', 'per_page'],
    ['per_page=101', 'per_page'],
    ['per_page=1e2', 'per_page'],
    ['status=deleted', 'status'],
    ['sort=id', 'sort'],
    ['dir=up', 'dir'],
    ['page=1&page=2', 'page'],
    [`search=${'x'.repeat(201)}`, 'search'],
  ])('refuses %s with a 400 naming %s', (text, name) => {
    expect(() => query(text)).toThrow(InvalidInput);
    expect(() => query(text)).toThrow(new RegExp(`^Invalid ${name}:`));
  });
});

describe('activate flag', () => {
  it.each(['true', 'TRUE', '1', 'yes', 'Yes', 'on', ' ON '])('reads %s as true', (v) => {
    expect(parseActivateFlag(v)).toBe(true);
  });
  it.each(['false', 'False', '0', 'no', 'NO', 'off', 'Off'])('reads %s as false', (v) => {
    expect(parseActivateFlag(v)).toBe(false);
  });
  it('defaults to true when absent', () => expect(parseActivateFlag(undefined)).toBe(true));
  it.each(['', 'maybe', '2', 'y'])('refuses %j', (v) => {
    expect(() => parseActivateFlag(v)).toThrow(/^Invalid activate/);
  });
});

describe('api keys', () => {
  it('generates well-formed keys that differ', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(isWellFormedApiKey(a)).toBe(true);
    expect(generateApiKey()).not.toBe(a);
  });
  it.each([
    '',
    'svc_',
    `svc_${'A'.repeat(48)}`,
    `svc_${'a'.repeat(47)}`,
    `svc_${'a'.repeat(49)}`,
    `key_${'a'.repeat(48)}`,
  ])('refuses %j before any lookup', (key) => expect(isWellFormedApiKey(key)).toBe(false));
  it('compares hashes exactly', () => {
    const h = hashApiKey('svc_x');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(sameHash(h, hashApiKey('svc_x'))).toBe(true);
    expect(sameHash(h, hashApiKey('svc_y'))).toBe(false);
    expect(sameHash(h, 'abcd')).toBe(false);
  });
});

describe('plans', () => {
  it('names the limit that was broken', () => {
    expect(() => checkPageCount('free', 201)).toThrow(/200 pages/);
    expect(() => checkPageCount('free', 200)).not.toThrow();
    expect(() => checkUploadSize('free', 51 * 1024 * 1024)).toThrow(/upload limit is 50 MB/);
    expect(() => checkFlipbookCount('free', 10)).toThrow(RuleBroken);
    expect(() => checkFlipbookCount('team', 10)).not.toThrow();
  });
});

describe('small helpers', () => {
  it('slugifies titles', () => {
    expect(slugify('Spring Catalogue 2026!')).toBe('spring-catalogue-2026');
    expect(slugify('Ünïcødé ✓')).toBe('unic-de');
    expect(slugify('✓✓✓')).toBe('flipbook');
    expect(slugify('a'.repeat(100))).toHaveLength(60);
  });
  it('recognises UUIDs', () => {
    expect(isUuid('3df4228e-437a-4f1c-b162-a57a57a87f40')).toBe(true);
    expect(isUuid('3DF4228E-437A-4F1C-B162-A57A57A87F40')).toBe(true);
    expect(isUuid('3df4228e437a4f1cb162a57a57a87f40')).toBe(false);
    expect(isUuid("' OR 1=1 --")).toBe(false);
  });
  it('trusts X-Forwarded-For only when told to, and then only its last entry', () => {
    const req = {
      headers: { 'x-forwarded-for': '6.6.6.6, 10.0.0.9' },
      socket: { remoteAddress: '127.0.0.1' },
    } as unknown as IncomingMessage;
    expect(clientAddress(req, false)).toBe('127.0.0.1');
    expect(clientAddress(req, true)).toBe('10.0.0.9');
  });
});
