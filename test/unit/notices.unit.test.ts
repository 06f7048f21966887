// The words a dashboard page shows after a form: only a notice the map holds, and only on its
// own page; never text from the URL, nor a name an object would inherit.
import { describe, expect, it } from 'vitest';
import { noticeAt, noticeOf, noticeQuery } from '../../src/dashboard/notices.ts';

const named = (name: string) => new URLSearchParams({ notice: name });

describe('noticeOf', () => {
  it('shows a notice on its own page, in its fixed words', () => {
    expect(noticeOf(named('saved'), 'flipbook')).toEqual({
      text: 'Changes saved.',
      kind: 'ok',
      section: 'details',
    });
    expect(noticeOf(named('role-changed'), 'members')?.text).toBe('The role is changed.');
  });

  it("shows nothing for another page's notice, an unknown name, an inherited one, or none", () => {
    expect(noticeOf(named('saved'), 'profile')).toBeNull();
    expect(noticeOf(named('password-changed'), 'flipbook')).toBeNull();
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', '<b>hi</b>']) {
      expect(noticeOf(named(name), 'flipbook')).toBeNull();
    }
    expect(noticeOf(new URLSearchParams(), 'grid')).toBeNull();
  });
});

describe('noticeQuery', () => {
  it('names a notice the map holds, and refuses one it does not', () => {
    expect(noticeQuery('flipbook-deleted')).toBe('notice=flipbook-deleted');
    expect(() => noticeQuery('constructor')).toThrow('no notice constructor');
  });
});

describe('noticeAt', () => {
  it("brings the page back at the section that says the notice, or at the page's top", () => {
    expect(noticeAt('downloads-off')).toBe('?notice=downloads-off#availability');
    expect(noticeAt('uploaded')).toBe('?notice=uploaded#versions');
    expect(noticeAt('preview-deleted')).toBe('?notice=preview-deleted#previews');
    expect(noticeAt('visibility')).toBe('?notice=visibility#readers');
    expect(noticeAt('role-changed')).toBe('?notice=role-changed');
    expect(() => noticeAt('constructor')).toThrow('no notice constructor');
  });
});
