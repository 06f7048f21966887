// The errors that always say the same (src/domain/errors.ts, refusal): what an answer is made
// of (status, words, headers, the name the log shows), each instance apart.
import { describe, expect, it } from 'vitest';
import { LinkFull } from '../../src/app/readerAdmission.ts';
import { AppError } from '../../src/domain/errors.ts';
import { Unauthorized } from '../../src/http/auth.ts';
import { StoreBusy } from '../../src/store/handleCommand.ts';

describe('refusal', () => {
  it('makes an AppError of its status, words and headers, named for the log', () => {
    const error = new Unauthorized();
    expect(error).toBeInstanceOf(AppError);
    expect(error).toBeInstanceOf(Unauthorized);
    expect(error).toMatchObject({
      name: 'Unauthorized',
      status: 401,
      message: 'Unauthorized',
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
    expect(String(error.stack)).toMatch(/^Unauthorized: Unauthorized/);
    expect(new StoreBusy()).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    expect(new LinkFull()).toMatchObject({ status: 409, headers: {} });
    expect(new LinkFull().message).toContain('(10,000)');
  });

  it('gives each error its own headers', () => {
    const first = new StoreBusy();
    first.headers.Connection = 'close';
    expect(new StoreBusy().headers).toEqual({ 'Retry-After': '1' });
    expect(new StoreBusy()).not.toBeInstanceOf(Unauthorized);
  });
});
