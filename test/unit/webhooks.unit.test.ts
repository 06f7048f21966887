// Webhooks' pure parts: the public face of stored events (nothing internal leaves), the retry
// schedule (backoff with jitter over about a day, Retry-After, 410, the last attempt), the
// address guard (every private range, IPv4 written as IPv6, at lookup), and the endpoint rules.
import { describe, expect, it } from 'vitest';
import { publicEvent } from '../../src/domain/publicEvents.ts';
import {
  afterAttempt,
  BACKOFF_SECONDS,
  MAX_ATTEMPTS,
  retryAfterSeconds,
} from '../../src/domain/webhookRetry.ts';
import { decide } from '../../src/domain/workspace/decide.ts';
import { MAX_ENDPOINTS } from '../../src/domain/workspace/webhooks.ts';
import { evolve, initialState, type WorkspaceEvent } from '../../src/domain/workspace/workspace.ts';
import {
  guardedLookup,
  isPrivateAddress,
  SPECIAL_IPV4,
  SPECIAL_IPV6,
} from '../../src/webhooks/addressGuard.ts';

const now = new Date('2026-11-25T10:00:00Z');

describe('public events', () => {
  it('shows version.done without page lists, checksums or the workspace', () => {
    const shown = publicEvent('VersionProcessed', {
      flipbookId: 'f1',
      versionId: 'v1',
      workspaceId: 'w1',
      pageCount: 3,
      width: 612,
      height: 792,
      pages: [{ pageId: 'p', position: 1, width: 612, height: 792 }],
      occurredAt: now.toISOString(),
    });
    expect(shown).toEqual({
      type: 'version.done',
      data: { flipbook_id: 'f1', version_id: 'v1', page_count: 3 },
    });
    const uploaded = publicEvent('VersionUploaded', {
      flipbookId: 'f1',
      versionId: 'v1',
      workspaceId: 'w1',
      number: 2,
      file: { name: 'a.pdf', size: 10, checksum: 'abc', type: 'pdf', mimeType: 'application/pdf' },
      activateOnDone: true,
    });
    expect(JSON.stringify(uploaded)).not.toContain('abc');
    expect(uploaded?.data).toEqual({
      flipbook_id: 'f1',
      version_id: 'v1',
      number: 2,
      file_name: 'a.pdf',
      file_size: 10,
      activate_on_done: true,
    });
  });

  it('has no face for sign-ins, keys, members or rendering batches', () => {
    for (const type of [
      'UserSignedIn',
      'ApiKeyIssued',
      'UserInvited',
      'VersionPagesRendered',
      'WorkspaceCreated',
    ]) {
      expect(publicEvent(type, { workspaceId: 'w1' })).toBeNull();
    }
  });

  it('an edit shows only the fields that changed', () => {
    expect(publicEvent('FlipbookEdited', { flipbookId: 'f1', title: 'New' })?.data).toEqual({
      flipbook_id: 'f1',
      changes: { title: 'New' },
    });
  });
});

describe('the retry schedule', () => {
  const failed = { status: 500, retryAfter: null };

  it('delivers on any 2xx only', () => {
    expect(afterAttempt(1, { status: 204, retryAfter: null }, now, 0.5).kind).toBe('delivered');
    expect(afterAttempt(1, { status: 302, retryAfter: null }, now, 0.5).kind).toBe('retry');
    expect(afterAttempt(1, { error: 'Connection refused' }, now, 0.5).kind).toBe('retry');
  });

  it('retries first within about 10 s, then backs off over about a day, then gives up', () => {
    const first = afterAttempt(1, failed, now, 0.999);
    expect(first).toEqual({ kind: 'retry', afterMs: expect.any(Number) });
    expect((first as { afterMs: number }).afterMs).toBeLessThanOrEqual(6_000);
    const total = BACKOFF_SECONDS.reduce((a, b) => a + b, 0);
    expect(total / 3600).toBeGreaterThan(20);
    expect(total / 3600).toBeLessThan(32);
    // jitter: ±20 %
    expect((afterAttempt(3, failed, now, 0) as { afterMs: number }).afterMs).toBe(96_000);
    expect((afterAttempt(3, failed, now, 0.5) as { afterMs: number }).afterMs).toBe(120_000);
    expect(afterAttempt(MAX_ATTEMPTS, failed, now, 0.5).kind).toBe('give-up');
  });

  it('honours Retry-After on 429 and 503 (seconds or a date) when longer, within bounds', () => {
    expect(afterAttempt(1, { status: 429, retryAfter: '120' }, now, 0.5)).toEqual({
      kind: 'retry',
      afterMs: 120_000,
    });
    const date = new Date(now.getTime() + 90_000).toUTCString();
    expect(afterAttempt(1, { status: 503, retryAfter: date }, now, 0.5)).toEqual({
      kind: 'retry',
      afterMs: 90_000,
    });
    expect(
      (afterAttempt(1, { status: 503, retryAfter: '99999999' }, now, 0.5) as { afterMs: number })
        .afterMs,
    ).toBe(43_200_000);
    // Only on 429 and 503: a 500's Retry-After does not change the schedule.
    expect(afterAttempt(1, { status: 500, retryAfter: '600' }, now, 0.5)).toEqual({
      kind: 'retry',
      afterMs: 5_000,
    });
    expect(retryAfterSeconds('soon', now)).toBeNull();
    // Never sooner than the schedule: "Retry-After: 1" on every attempt still takes about a day.
    expect(afterAttempt(4, { status: 429, retryAfter: '1' }, now, 0.5)).toEqual({
      kind: 'retry',
      afterMs: 600_000,
    });
    expect(
      afterAttempt(1, { status: 503, retryAfter: new Date(0).toUTCString() }, now, 0.5),
    ).toEqual({ kind: 'retry', afterMs: 5_000 });
  });

  it('410 Gone asks for no more', () => {
    expect(afterAttempt(1, { status: 410, retryAfter: null }, now, 0.5).kind).toBe('gone');
  });
});

describe('the address guard', () => {
  it('refuses loopback, private, link-local, metadata and IPv4 written as IPv6', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.5',
      '172.16.3.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '[::1]',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b:1::7f00:1',
      '2002:7f00:1::',
      '2001:0:4136:e378::1',
      '192.88.99.1',
      'not an address',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  // Every entry of the IANA special-purpose registries: its first, its last and a middle address.
  it.each(SPECIAL_IPV4)('refuses IPv4 %s (%s), first to last', (cidr) => {
    for (const address of ends(cidr, 4)) expect(isPrivateAddress(address), address).toBe(true);
  });

  it.each(SPECIAL_IPV6)('refuses IPv6 %s (%s), first to last', (cidr) => {
    for (const address of ends(cidr, 6)) expect(isPrivateAddress(address), address).toBe(true);
  });

  it('refuses every address outside global unicast (2000::/3), listed or not', () => {
    for (const address of ['4000::1', '8000::1', 'e000::1', '1::1', 'fec0::1', 'fbff::1']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it('lets through public addresses beside the special ranges', () => {
    for (const address of [
      '11.0.0.1', // after 10.0.0.0/8
      '100.128.0.1', // after 100.64.0.0/10
      '172.32.0.1', // after 172.16.0.0/12
      '192.0.1.1', // between 192.0.0.0/24 and 192.0.2.0/24
      '198.20.0.1', // after 198.18.0.0/15
      '223.255.255.254', // before multicast
      '2001:200::1', // after 2001::/23 (an RIR's allocation)
      '2620:4f:8001::1', // beside the AS112 delegation
      '3fff:1000::1', // after 3fff::/20
      '2a00:1450:4001:80b::200e',
      '::ffff:1.1.1.1', // IPv4-mapped: judged by the IPv4 inside
      '64:ff9b::808:808', // NAT64 of 8.8.8.8
    ]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
    expect(isPrivateAddress('64:ff9b::a00:1'), 'NAT64 of 10.0.0.1').toBe(true);
    expect(isPrivateAddress('::8.8.8.8'), 'IPv4-compatible, deprecated').toBe(true);
  });

  it('refuses a name that resolves to a private address, at the connection', async () => {
    const result = await new Promise<{ error: Error | null }>((resolve) =>
      guardedLookup('localhost', { all: false }, (error) => resolve({ error })),
    );
    expect(result.error?.message).toMatch(/localhost resolves to .* private or local address/);
  });
});

describe('webhook endpoints on the workspace stream', () => {
  const created: WorkspaceEvent = {
    type: 'WorkspaceCreated',
    data: { workspaceId: 'w1', name: 'acme', plan: 'team', occurredAt: now.toISOString() },
  };
  const add = (webhookId: string, url = 'https://example.com/hook') => ({
    type: 'AddWebhook' as const,
    data: { webhookId, url, events: null, description: '', now },
  });

  it('adds up to the limit, on the Team plan only', () => {
    let state = [created].reduce(evolve, initialState());
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      state = decide(add(`h${i}`), state).reduce(evolve, state);
    }
    expect(() => decide(add('one-more'), state)).toThrow(/at most 10 webhooks/);
    const free = [{ ...created, data: { ...created.data, plan: 'free' as const } }].reduce(
      evolve,
      initialState(),
    );
    expect(() => decide(add('h'), free)).toThrow(/Team plan only/);
  });

  it('refuses urls that are not http(s), or that hold a password', () => {
    const state = [created].reduce(evolve, initialState());
    expect(() => decide(add('h', 'file:///etc/passwd'), state)).toThrow(/https:\/\/ or http:\/\//);
    expect(() => decide(add('h', 'https://u:p@example.com/'), state)).toThrow(
      /user name or password/,
    );
  });

  it('disables once, enables once, and forgets a removed endpoint', () => {
    let state = [created].reduce(evolve, initialState());
    state = decide(add('h'), state).reduce(evolve, state);
    const disable = {
      type: 'DisableWebhook' as const,
      data: { webhookId: 'h', reason: 'gone' as const, now },
    };
    const disabled = decide(disable, state);
    expect(disabled.map((e) => e.type)).toEqual(['WebhookEndpointDisabled']);
    state = disabled.reduce(evolve, state);
    expect(decide(disable, state)).toEqual([]);
    const enable = { type: 'EnableWebhook' as const, data: { webhookId: 'h', now } };
    state = decide(enable, state).reduce(evolve, state);
    expect(decide(enable, state)).toEqual([]);
    state = decide({ type: 'RemoveWebhook', data: { webhookId: 'h', now } }, state).reduce(
      evolve,
      state,
    );
    expect(() => decide(enable, state)).toThrow(/No webhook/);
  });
});

/** The first, a middle and the last address of a CIDR block, written as addresses. */
const ends = (cidr: string, family: 4 | 6): string[] => {
  const [net, prefixText] = cidr.split('/') as [string, string];
  const bits = family === 4 ? 32 : 128;
  const prefix = BigInt(prefixText);
  const size = 1n << (BigInt(bits) - prefix);
  const first = (toBig(net, family) >> (BigInt(bits) - prefix)) << (BigInt(bits) - prefix);
  return [first, first + size / 2n, first + size - 1n].map((n) => fromBig(n, family));
};

const toBig = (address: string, family: 4 | 6): bigint => {
  if (family === 4) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n);
  const [head = '', tail = ''] = address.split('::');
  const groups = (text: string) => (text === '' ? [] : text.split(':'));
  const left = groups(head);
  const right = groups(tail);
  const all = address.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return all.reduce((n, group) => (n << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
};

const fromBig = (n: bigint, family: 4 | 6): string =>
  family === 4
    ? [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 255n)).join('.')
    : Array.from({ length: 8 }, (_, i) =>
        ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16),
      ).join(':');
