// The waits an environment may set (src/envDuration.ts): FLIPBOOK_LEASE_MS, the retries, the small
// bodies' FLIPBOOK_BODY_TIMEOUT_MS. A value out of range is the default, never a timer that fires
// at once (past 2^31 ms) or a wait too short to be one.
import { afterEach, describe, expect, it } from 'vitest';
import { durationFromEnv } from '../../src/envDuration.ts';

const NAME = 'FLIPBOOK_TEST_DURATION_MS';

describe('a wait set in the environment', () => {
  afterEach(() => {
    delete process.env[NAME];
  });

  it.each([
    ['1000', 1000],
    ['2000', 2000],
    ['3600000', 3_600_000],
  ])('takes %s ms, within a second and an hour', (value, expected) => {
    process.env[NAME] = value;
    expect(durationFromEnv(NAME, 30_000)).toBe(expected);
  });

  it.each([
    ['unset', undefined],
    ['empty', ''],
    ['under a second', '999'],
    ['over an hour', '3600001'],
    ['past what a timer holds', '2147483648'],
    ['not a number', '2s'],
    ['negative', '-5000'],
  ])('is the default when %s', (_what, value) => {
    if (value !== undefined) process.env[NAME] = value;
    expect(durationFromEnv(NAME, 30_000)).toBe(30_000);
  });
});
