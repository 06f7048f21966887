// What a file request answers for its conditional and Range headers (src/http/conditional.ts).
import { describe, expect, it } from 'vitest';
import { answerFor } from '../../src/http/conditional.ts';

const v = { etag: '"64-18f0"', lastModified: 'Tue, 02 Jun 2026 10:00:00 GMT' };
const answer = (headers: Record<string, string>, size = 100) => answerFor(headers, size, v);

describe('file answers', () => {
  it('sends the whole file without conditions', () => {
    expect(answer({})).toEqual({ status: 200, start: 0, end: 99 });
  });

  it('answers single byte ranges, suffixes and open ends with 206', () => {
    expect(answer({ range: 'bytes=0-9' })).toEqual({ status: 206, start: 0, end: 9 });
    expect(answer({ range: 'bytes=-10' })).toEqual({ status: 206, start: 90, end: 99 });
    expect(answer({ range: 'bytes=95-' })).toEqual({ status: 206, start: 95, end: 99 });
    expect(answer({ range: 'bytes=90-500' })).toEqual({ status: 206, start: 90, end: 99 });
    expect(answer({ range: 'bytes=-500' })).toEqual({ status: 206, start: 0, end: 99 });
    // overlapping ranges merge into one
    expect(answer({ range: 'bytes=0-9,5-19' })).toEqual({ status: 206, start: 0, end: 19 });
  });

  it('refuses ranges wholly past the end with 416', () => {
    expect(answer({ range: 'bytes=100-' })).toEqual({ status: 416 });
    expect(answer({ range: 'bytes=200-300' })).toEqual({ status: 416 });
    expect(answer({ range: 'bytes=-0' })).toEqual({ status: 416 });
  });

  it('ignores malformed ranges, other units, disjoint ranges, and ranges of an empty file', () => {
    for (const range of ['bytes=abc', 'bytes=5', 'items=0-1', 'bytes=0-1,50-60', 'nonsense']) {
      expect(answer({ range }), range).toEqual({ status: 200, start: 0, end: 99 });
    }
    expect(answer({ range: 'bytes=0-0' }, 0)).toEqual({ status: 200, start: 0, end: -1 });
  });

  it('honours If-Range only for the same file (strong ETag or exact date)', () => {
    const range = 'bytes=0-9';
    expect(answer({ range, 'if-range': v.etag }).status).toBe(206);
    expect(answer({ range, 'if-range': v.lastModified }).status).toBe(206);
    expect(answer({ range, 'if-range': '"other"' }).status).toBe(200);
    expect(answer({ range, 'if-range': `W/${v.etag}` }).status).toBe(200);
    expect(answer({ range, 'if-range': 'Wed, 03 Jun 2026 10:00:00 GMT' }).status).toBe(200);
    expect(answer({ range, 'if-range': 'not a date' }).status).toBe(200);
  });

  it('answers 304 to a matching If-None-Match or an unchanged If-Modified-Since', () => {
    expect(answer({ 'if-none-match': v.etag })).toEqual({ status: 304 });
    expect(answer({ 'if-none-match': `"x", W/${v.etag}` })).toEqual({ status: 304 });
    expect(answer({ 'if-none-match': '"x"' }).status).toBe(200);
    expect(answer({ 'if-modified-since': v.lastModified })).toEqual({ status: 304 });
    expect(answer({ 'if-modified-since': 'Mon, 01 Jun 2026 10:00:00 GMT' }).status).toBe(200);
    // the origin answers on validators, whatever a client says to caches
    expect(answer({ 'if-none-match': v.etag, 'cache-control': 'no-cache' }).status).toBe(304);
    // If-None-Match wins over If-Modified-Since
    expect(answer({ 'if-none-match': '"x"', 'if-modified-since': v.lastModified }).status).toBe(
      200,
    );
  });

  it('answers 412 when If-Match or If-Unmodified-Since fails', () => {
    expect(answer({ 'if-match': '"x"' })).toEqual({ status: 412 });
    expect(answer({ 'if-match': `W/${v.etag}` })).toEqual({ status: 412 });
    expect(answer({ 'if-match': `"x", ${v.etag}` }).status).toBe(200);
    expect(answer({ 'if-match': '*' }).status).toBe(200);
    expect(answer({ 'if-unmodified-since': 'Mon, 01 Jun 2026 10:00:00 GMT' })).toEqual({
      status: 412,
    });
    expect(answer({ 'if-unmodified-since': v.lastModified }).status).toBe(200);
  });
});
