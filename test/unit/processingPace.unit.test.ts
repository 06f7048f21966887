// The pace of a render as the CLI tells it (packages/cli/src/client/processingPace.ts).
import { describe, expect, it } from 'vitest';
import { describePace, processingPace } from '../../packages/cli/src/client/processingPace.ts';

describe('processing pace', () => {
  it('is unknown until pages were done between two answers', () => {
    expect(processingPace([], 100)).toEqual({ rate: null, leftSeconds: null });
    expect(processingPace([{ at: 0, done: 5 }], 100)).toEqual({ rate: null, leftSeconds: null });
    expect(
      processingPace(
        [
          { at: 0, done: 5 },
          { at: 1000, done: 5 },
        ],
        100,
      ).rate,
    ).toBeNull();
  });

  it('counts pages a second over the last 15 s, and the time left at that pace', () => {
    const samples = [
      { at: 0, done: 0 },
      { at: 10_000, done: 1 }, // a slow start, outside the window at the end
      { at: 20_000, done: 21 },
      { at: 30_000, done: 41 },
    ];
    const { rate, leftSeconds } = processingPace(samples, 141);
    expect(rate).toBeCloseTo(2, 5); // 40 pages in 20 s (from 10 s on: the first sample in the window)
    expect(leftSeconds).toBe(50);
  });

  it('says it in words', () => {
    const samples = [
      { at: 0, done: 10 },
      { at: 2000, done: 30 },
    ];
    // two seconds of answers are too few to guess from
    expect(describePace(30, 352, samples)).toBe('30 of 352 pages');
    samples.push({ at: 4000, done: 50 });
    expect(describePace(50, 352, samples)).toBe('50 of 352 pages, 10.0 pages/s, about 31 s left');
    expect(describePace(50, 2000, samples)).toBe(
      '50 of 2000 pages, 10.0 pages/s, about 3 min 15 s left',
    );
    expect(describePace(0, 0, [])).toBe('');
    expect(describePace(3, 10, [])).toBe('3 of 10 pages');
  });
});
