// A form's body read as browsers encode it, strictly: what URLSearchParams reads, it reads the
// same, except bytes that are not UTF-8 (a page sent in Latin-1 posting "Caf%E9"), which are
// refused in words instead of kept as U+FFFD.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readForm } from '../../src/http/formBody.ts';

const posted = (body: string | Buffer) =>
  Object.assign(Readable.from([Buffer.from(body)]), {
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
  }) as unknown as IncomingMessage;

const entries = async (body: string) => [...(await readForm(posted(body))).entries()];

describe('readForm', () => {
  it('reads every form as URLSearchParams does', async () => {
    for (const body of [
      'title=Caf%C3%A9+au+lait&slug=cafe',
      'a=1&a=2&b=',
      'flag&=empty-name&&x=%2B%26%3D',
      'percent=100%&odd=%zz%4&tail=%',
      'emoji=%F0%9F%93%96&raw=€',
      'name+with+spaces=and%20these',
      '',
    ]) {
      expect(await entries(body), body).toEqual([...new URLSearchParams(body).entries()]);
    }
  });

  it('refuses bytes that are not UTF-8, encoded or not, and NUL', async () => {
    for (const body of ['title=Caf%E9', 'Caf%E9=x', 'x=%C3', 'x=%ED%A0%80']) {
      await expect(readForm(posted(body)), body).rejects.toThrow(
        'The form cannot be read: it is not UTF-8',
      );
    }
    await expect(readForm(posted(Buffer.from('title=Caf\xe9', 'latin1')))).rejects.toThrow(
      'The form cannot be read: it is not UTF-8',
    );
    await expect(readForm(posted('title=a%00b'))).rejects.toThrow('NUL');
  });
});
