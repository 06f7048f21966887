// The blob stores' naming: bucket URLs, and the keys both stores share (made from hashes, ids and
// positions only; `copy` moves nothing else).
import { describe, expect, it } from 'vitest';
import { isStoreKey, originalKey, pageKey, versionKey } from '../../src/blobs/blobStore.ts';
import { parseS3Url } from '../../src/blobs/s3Url.ts';
import { checkBlobPublicUrl } from '../../src/cli/blobOptions.ts';

const SHA = 'ab'.repeat(32);
const VERSION = '0b9c1a4e-3f2d-4c5b-8a7e-6d5c4b3a2f10';

describe('s3:// URLs', () => {
  it('takes a bucket and an optional prefix, normalised to end in one slash', () => {
    expect(parseS3Url('s3://flipbooks')).toEqual({ bucket: 'flipbooks', prefix: '' });
    expect(parseS3Url('s3://flipbooks/')).toEqual({ bucket: 'flipbooks', prefix: '' });
    expect(parseS3Url('s3://my.bucket-1/prod/books/')).toEqual({
      bucket: 'my.bucket-1',
      prefix: 'prod/books/',
    });
    expect(parseS3Url('s3://b12//x//')).toEqual({ bucket: 'b12', prefix: 'x/' });
  });

  it('refuses what is not a bucket URL or holds characters a key should not', () => {
    for (const url of [
      'https://flipbooks',
      's3://',
      's3://UPPER',
      's3://a',
      's3://bucket/pre fix',
      's3://bucket/../x?y',
      's3://bucket/%2e%2e',
      's3://bucket/../x',
      's3://bucket/a/./b',
      's3://bucket/a//b',
    ]) {
      expect(() => parseS3Url(url), url).toThrow();
    }
  });
});

describe('store keys', () => {
  it('names originals by content and pages by version, position and file', () => {
    expect(originalKey(SHA)).toBe(`originals/ab/${SHA}.pdf`);
    expect(versionKey(VERSION)).toBe(`pages/${VERSION}`);
    expect(pageKey(VERSION, 12, 'mid.jpg')).toBe(`pages/${VERSION}/12/mid.jpg`);
  });

  it('refuses anything that is not a hash, a version id, a page or a page file', () => {
    expect(() => originalKey('../etc/passwd')).toThrow();
    expect(() => versionKey('../../x')).toThrow();
    expect(() => pageKey(VERSION, 0, 'mid.jpg')).toThrow();
    expect(() => pageKey(VERSION, 1.5, 'mid.jpg')).toThrow();
    expect(() => pageKey(VERSION, 1, '../x' as never)).toThrow();
  });

  it('recognises exactly the keys the stores make', () => {
    for (const key of [
      originalKey(SHA),
      pageKey(VERSION, 1, 'max.jpg'),
      pageKey(VERSION, 999999, 'words.json'),
      `pages/${VERSION}/document.json`,
      `pages/${VERSION}/lines.json`,
    ]) {
      expect(isStoreKey(key), key).toBe(true);
    }
    for (const key of [
      `originals/cd/${SHA}.pdf`, // in the wrong folder
      `tmp/host.1.${VERSION}.part`,
      `pages/${VERSION}/0/max.jpg`,
      `pages/${VERSION}/1/max.jpg.part`,
      `pages/${VERSION}/1/lines.json`, // the whole version's, not a page's
      `pages/${VERSION}/attempt-1-abcd/1/max.jpg`,
      `pages/${VERSION}/../../x`,
      'pages/not-a-version/1/max.jpg',
    ]) {
      expect(isStoreKey(key), key).toBe(false);
    }
  });
});

describe('--blob-public-url', () => {
  it('takes a plain http(s) base, without its trailing slash, and only beside a bucket', () => {
    expect(checkBlobPublicUrl(undefined, undefined)).toBeUndefined();
    expect(checkBlobPublicUrl('https://cdn.example.com/books/', 's3://b1')).toBe(
      'https://cdn.example.com/books',
    );
    expect(checkBlobPublicUrl('http://127.0.0.1:9000/bucket/p', 's3://b1/p')).toBe(
      'http://127.0.0.1:9000/bucket/p',
    );
    expect(checkBlobPublicUrl('HTTPS://CDN.example.com/p', 's3://b1')).toBe(
      'https://cdn.example.com/p',
    );
    expect(() => checkBlobPublicUrl('https://cdn.example.com', undefined)).toThrow(/--blob-url/);
  });

  it('refuses credentials, queries, fragments, other schemes and what a URL must escape', () => {
    for (const url of [
      'javascript:alert(1)',
      'ftp://cdn.example.com',
      'https://user:pw@cdn.example.com/p',
      'http://cdn.example.com/a?x=1',
      'http://cdn.example.com/a#top',
      'http://x.example/"><script>alert(1)</script>',
      "http://x.example/it's",
      'http://x.example/a b',
      'cdn.example.com',
      'https:cdn.example',
      'https:///cdn.example',
      'http:/cdn.example',
    ]) {
      expect(() => checkBlobPublicUrl(url, 's3://b1'), url).toThrow(/plain http\(s\) URL/);
    }
  });
});
