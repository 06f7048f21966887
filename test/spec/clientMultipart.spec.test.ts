// The client's multipart body (packages/cli/src/client/multipartBody.ts) as the real server reads
// it: file names a shell lets anyone make (an escape sequence, quotes, a backslash, a newline,
// non-Latin letters) still upload, under a name the server cleans; none is a malformed part.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody } from '../../packages/cli/src/client/multipartBody.ts';
import { CORPUS, SMALL_PDF, send } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';

describe("the client's upload body, read by the server", () => {
  const app = useApp();
  let folder = '';
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'flipbook-names-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it.each([
    ['an escape sequence', 'esc\u001b[31m.pdf'],
    ['quotes and a semicolon', 'say "hi"; now.pdf'],
    ['a newline and a tab', 'two\nlines\t.pdf'],
    ['a backslash', 'back\\slash.pdf'],
    ['Greek and an emoji', 'Κατάλογος 📘.pdf'],
  ])('uploads a file named with %s', async (_, name) => {
    const path = join(folder, name);
    await copyFile(join(CORPUS, SMALL_PDF), path);
    const { size } = await import('node:fs/promises').then((fs) => fs.stat(path));
    const made = multipartBody({ path, name, size }, { title: '' }, () => {});
    const body = await buffer(made.body);
    // no raw control character in the part's header lines
    const head = body.subarray(0, body.indexOf('%PDF')).toString('latin1');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be there
    expect(head.replace(/\r\n/g, '')).not.toMatch(/[\x00-\x1f\x7f]/);
    const reply = await send(`${app.api}/flipbooks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${app.key}`,
        'content-type': made.contentType,
        'content-length': String(made.length),
      },
      body,
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.title.length).toBeGreaterThan(0);
  });
});
