// Races and hostile input around managing flipbooks, found by an independent tester: an upload
// that loses a race with the flipbook's deletion, titles nobody can see or that reorder text, and
// a small body that never arrives.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, createFlipbook, expectError, pdf, send } from '../support/apiHelpers.ts';
import { useApi } from '../support/useApi.ts';

describe('managing flipbooks under races and hostile input', () => {
  // a small body's wait 2 s instead of 30 (src/http/bodyLimit.ts), for the one that never arrives
  const BODY_TIMEOUT_MS = 2_000;
  const fx = useApi('embedded', ['--rate-limit', '0'], {
    FLIPBOOK_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
  });

  it('keeps no original of an upload that lost the race with its flipbook being deleted', async () => {
    for (let round = 0; round < 5; round++) {
      const book = await createFlipbook(fx.c, { title: `Doomed ${round}` });
      // bytes no other version has: a PDF with a unique comment appended
      const bytes = Buffer.concat([
        Buffer.from(corpus('text_why3-manual.pdf')),
        Buffer.from(`\n% round ${round} ${Date.now()}\n`),
      ]);
      const sha = createHash('sha256').update(bytes).digest('hex');
      const upload = fx.c.addVersion(book.flipbookId, {
        bytes: new Uint8Array(bytes),
        name: 'late.pdf',
        type: 'application/pdf',
      });
      const removed = await fx.c.del(`/flipbooks/${book.flipbookId}`);
      expect(removed.status).toBe(200);
      const uploaded = await upload;
      const original = join(
        fx.storeArgs[1] ?? '',
        'blobs',
        'originals',
        sha.slice(0, 2),
        `${sha}.pdf`,
      );
      if (uploaded.status === 201) {
        // it won: its version went with the flipbook, and so did its original
        expect(existsSync(original), `round ${round}: the deleted version's original`).toBe(false);
      } else {
        expectError(uploaded, 404, /^Flipbook not found$/);
        expect(existsSync(original), `round ${round}: a refused upload's original`).toBe(false);
      }
    }
  }, 120_000);

  it('refuses titles nobody can see or that reorder the text around them', async () => {
    const book = await createFlipbook(fx.c);
    const patch = (title: string) =>
      send(`${fx.api}/flipbooks/${book.flipbookId}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title }),
      });
    for (const title of ['\u200b', '\u0301\u0301', ' \u00a0 ']) {
      expectError(await patch(title), 400, /^Invalid title: it must not be blank$/);
    }
    expectError(await patch('\u202eevil\u202c'), 400, /text direction control \(U\+202E\)/);
    expectError(await fx.c.create(pdf('text_multicolumn.pdf'), { title: '\u2066x\u2069' }), 400);
    const arabic = await patch('كتاب عربي');
    expect(arabic.status).toBe(200);
    expect(arabic.body.title).toBe('كتاب عربي');
  });

  it('answers 408 to an edit whose body never arrives, and closes the connection', async () => {
    const book = await createFlipbook(fx.c);
    const { hostname, port } = new URL(fx.daemon.url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `PATCH /api/v1/flipbooks/${book.flipbookId} HTTP/1.1\r\nHost: x\r\n` +
            `Authorization: Bearer ${fx.key}\r\nContent-Type: application/json\r\n` +
            'Content-Length: 30\r\n\r\n{"tit',
        );
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(answer).toContain('{"error":"Request timeout: the body did not arrive in time"}');
    // after the wait it was given, not before, and not long after
    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS);
    expect(Date.now() - started).toBeLessThan(BODY_TIMEOUT_MS + 10_000);
  });
});
