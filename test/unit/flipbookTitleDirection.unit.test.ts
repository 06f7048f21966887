// A flipbook's reading direction and whether its title is still the upload's file name: what the
// decider records, how evolve reads it (old events without either field included), and the
// fields' own parsing.
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../src/domain/errors.ts';
import { decide, type FlipbookCommand } from '../../src/domain/flipbook/decide.ts';
import {
  evolve,
  type Flipbook,
  type FlipbookCreated,
  type FlipbookEvent,
  initialState,
  type VersionUploaded,
} from '../../src/domain/flipbook/flipbook.ts';
import { defaultTitle, defaultTitleOf, direction } from '../../src/domain/flipbookFields.ts';
import { editsFrom } from '../../src/http/editBody.ts';
import { book, NOW, now, past, pdfFile, versionId } from '../support/domainFixtures.ts';

const V1 = versionId(1);
const V2 = versionId(2);

const create = (data: Partial<Extract<FlipbookCommand, { type: 'CreateFlipbook' }>['data']>) =>
  ({
    type: 'CreateFlipbook',
    data: {
      ...book,
      title: 'report.pdf',
      slug: 'report-pdf',
      description: '',
      versionId: V1,
      file: pdfFile('report.pdf'),
      now: NOW,
      ...data,
    },
  }) as FlipbookCommand;
const edit = (data: Omit<Extract<FlipbookCommand, { type: 'EditFlipbook' }>['data'], 'now'>) =>
  ({ type: 'EditFlipbook', data: { ...data, now: NOW } }) as FlipbookCommand;

/** A FlipbookCreated as recorded; `extra` holds the fields newer events carry. */
const created = (title: string, extra: Partial<FlipbookCreated['data']> = {}): FlipbookCreated => ({
  type: 'FlipbookCreated',
  data: { ...past, title, slug: 'report', description: '', ...extra },
});
const uploaded = (number: number, name: string, versionId = V1): VersionUploaded => ({
  type: 'VersionUploaded',
  data: { ...past, versionId, number, file: pdfFile(name), activateOnDone: true },
});

const stateOf = (events: FlipbookEvent[]) => {
  const state = events.reduce(evolve, initialState());
  if (state.status !== 'created') throw new Error('no flipbook');
  return state;
};
const decided = (events: FlipbookEvent[], command: FlipbookCommand) =>
  decide(command, events.reduce<Flipbook>(evolve, initialState()));

describe('creating a flipbook', () => {
  it('records a title taken from the file name, and a chosen direction', () => {
    const [event] = decided([], create({ titleFromFile: true, direction: 'rtl' }));
    expect(event).toStrictEqual({
      type: 'FlipbookCreated',
      data: {
        ...now,
        title: 'report.pdf',
        slug: 'report-pdf',
        description: '',
        direction: 'rtl',
        titleFromFile: true,
      },
    });
  });

  it('records a given title as given, even when it is the file name, and auto as no direction', () => {
    for (const direction of [undefined, 'auto'] as const) {
      const [event] = decided([], create({ direction }));
      expect(event?.data).toStrictEqual({
        ...now,
        title: 'report.pdf',
        slug: 'report-pdf',
        description: '',
        titleFromFile: false,
      });
    }
  });
});

describe('evolve', () => {
  it('reads a new FlipbookCreated as it says', () => {
    expect(
      stateOf([created('report.pdf', { titleFromFile: true }), uploaded(1, 'x.pdf')]),
    ).toMatchObject({ titleFromFile: true, direction: null });
    expect(
      stateOf([
        created('report.pdf', { titleFromFile: false, direction: 'ltr' }),
        uploaded(1, 'report.pdf'),
      ]),
    ).toMatchObject({ titleFromFile: false, direction: 'ltr' });
  });

  it('reads an old FlipbookCreated (neither field) as auto, its title the file name’s when it is what the file name makes', () => {
    expect(stateOf([created('Annual report')])).toMatchObject({
      titleFromFile: null,
      direction: null,
    });
    expect(stateOf([created('report.pdf'), uploaded(1, 'report.pdf')]).titleFromFile).toBe(true);
    // the default is the file name trimmed, as the title rules make it
    expect(stateOf([created('report.pdf'), uploaded(1, '  report.pdf ')]).titleFromFile).toBe(true);
    expect(stateOf([created('Annual report'), uploaded(1, 'report.pdf')]).titleFromFile).toBe(
      false,
    );
    // only version 1 was uploaded with the flipbook: a later one with that name changes nothing
    expect(
      stateOf([created('Annual report'), uploaded(1, 'a.pdf'), uploaded(2, 'Annual report', V2)])
        .titleFromFile,
    ).toBe(false);
  });

  it('ends titleFromFile at any edit that sets the title, and follows edits of the direction', () => {
    const start = [created('report.pdf', { titleFromFile: true }), uploaded(1, 'report.pdf')];
    const edited = (data: Record<string, unknown>): FlipbookEvent =>
      ({ type: 'FlipbookEdited', data: { ...past, ...data } }) as FlipbookEvent;
    expect(stateOf([...start, edited({ description: 'x' })]).titleFromFile).toBe(true);
    expect(stateOf([...start, edited({ title: 'report.pdf' })]).titleFromFile).toBe(false);
    expect(stateOf([...start, edited({ direction: 'rtl' })]).direction).toBe('rtl');
    expect(
      stateOf([...start, edited({ direction: 'rtl' }), edited({ direction: 'auto' })]).direction,
    ).toBe(null);
    expect(
      stateOf([...start, edited({ direction: 'ltr' }), edited({ title: 'T' })]).direction,
    ).toBe('ltr');
  });
});

describe('editing the direction and the title', () => {
  const fromFile = [created('report.pdf', { titleFromFile: true }), uploaded(1, 'report.pdf')];

  it('records a direction that changes, auto included', () => {
    expect(decided(fromFile, edit({ direction: 'rtl' }))).toStrictEqual([
      { type: 'FlipbookEdited', data: { ...now, direction: 'rtl' } },
    ]);
    const rtl = [...fromFile, { type: 'FlipbookEdited', data: { ...past, direction: 'rtl' } }];
    expect(decided(rtl as FlipbookEvent[], edit({ direction: 'auto' }))).toStrictEqual([
      { type: 'FlipbookEdited', data: { ...now, direction: 'auto' } },
    ]);
    expect(
      decided(rtl as FlipbookEvent[], edit({ direction: 'ltr', title: 'Report' })),
    ).toStrictEqual([
      { type: 'FlipbookEdited', data: { ...now, title: 'Report', direction: 'ltr' } },
    ]);
  });

  it('records nothing for the direction it already has', () => {
    expect(decided(fromFile, edit({ direction: 'auto' }))).toEqual([]);
    const old = [created('Annual report'), uploaded(1, 'report.pdf')];
    expect(decided(old, edit({ direction: 'auto', title: 'Annual report' }))).toEqual([]);
  });

  it('records the file name’s own title set again: from then on it is a chosen title', () => {
    expect(decided(fromFile, edit({ title: 'report.pdf' }))).toStrictEqual([
      { type: 'FlipbookEdited', data: { ...now, title: 'report.pdf' } },
    ]);
    // an old flipbook whose title is its file name's, too
    const old = [created('report.pdf'), uploaded(1, 'report.pdf')];
    expect(decided(old, edit({ title: 'report.pdf' }))).toHaveLength(1);
    // once chosen, setting it again is no change
    const chosen = [
      ...fromFile,
      { type: 'FlipbookEdited', data: { ...past, title: 'report.pdf' } },
    ];
    expect(decided(chosen as FlipbookEvent[], edit({ title: 'report.pdf' }))).toEqual([]);
  });
});

describe('the fields', () => {
  it('takes ltr, rtl and auto in any letter case as the upload’s direction, nothing else', () => {
    expect(direction('rtl')).toBe('rtl');
    expect(direction(' LTR ')).toBe('ltr');
    expect(direction('Auto')).toBe('auto');
    for (const bad of ['', ' ', 'right-to-left', 'r', 'rtl,ltr']) {
      expect(() => direction(bad)).toThrow(InvalidInput);
      expect(() => direction(bad)).toThrow('Invalid direction: must be "ltr", "rtl" or "auto"');
    }
  });

  it('takes exactly ltr, rtl or auto as PATCH’s direction', () => {
    expect(editsFrom({ direction: 'rtl' })).toEqual({ direction: 'rtl' });
    expect(editsFrom({ direction: 'auto', title: 'T' })).toEqual({ direction: 'auto', title: 'T' });
    expect(() => editsFrom({ direction: 'RTL' })).toThrow(
      'Invalid direction: must be "ltr", "rtl" or "auto"',
    );
    expect(() => editsFrom({ direction: 1 })).toThrow('Invalid direction: must be a string');
    expect(() => editsFrom({ direction: null })).toThrow('Invalid direction: must be a string');
  });

  it('makes the default title from the file name, or none from a name no title may hold', () => {
    expect(defaultTitle(' report.pdf ')).toBe('report.pdf');
    expect(defaultTitleOf('report.pdf')).toBe('report.pdf');
    expect(defaultTitleOf('\u202ereport.pdf')).toBe(null);
  });
});
