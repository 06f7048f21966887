// A flipbook's reading direction (beyond the spec) and whether its title is still the upload's
// file name: the `direction` upload field and PATCH field, the answers that show it, and the two
// columns the reader reads (src/queries/reader.ts), for flipbooks created now and for ones created
// before either field existed (their FlipbookCreated appended as it was then), before and after a
// replay. The whole app in process (test/support/appSpec.ts); one store: the SQL is the same on
// both. The CLI's --direction is test/e2e/directionCli.e2e.test.ts's.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as flipbookDecider from '../../src/domain/flipbook/flipbook.ts';
import { findReaderFlipbook } from '../../src/queries/reader.ts';
import { longWork } from '../../src/store/databaseLimits.ts';
import { handleCommand } from '../../src/store/handleCommand.ts';
import { rebuildReadTables } from '../../src/store/replay.ts';
import { createFlipbook, expectJson, pdf, SMALL_PDF } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import { TEST_METADATA } from '../support/metadata.ts';

const INVALID = 'Invalid direction: must be "ltr", "rtl" or "auto"';

describe('reading direction and the title from the file', () => {
  const fx = useApp();

  const patch = (id: string, body: unknown) => fx.c.patch(`/flipbooks/${id}`, body);
  const reader = async (id: string) => {
    const row = await findReaderFlipbook(fx.store.db, id);
    return (
      row && { title: row.title, title_from_file: row.title_from_file, direction: row.direction }
    );
  };
  /** A flipbook as one was created before `direction` and `titleFromFile`: its first two events. */
  const oldFlipbook = async (title: string, fileName: string) => {
    const flipbookId = randomUUID();
    const base = {
      flipbookId,
      workspaceId: fx.workspaceId,
      occurredAt: fx.clock.now().toISOString(),
    };
    await handleCommand(
      fx.store.events,
      flipbookDecider.flipbookStream(flipbookId),
      flipbookDecider,
      (): flipbookDecider.FlipbookEvent[] => [
        { type: 'FlipbookCreated', data: { ...base, title, slug: randomUUID(), description: '' } },
        {
          type: 'VersionUploaded',
          data: {
            ...base,
            versionId: randomUUID(),
            number: 1,
            file: {
              name: fileName,
              type: 'pdf',
              mimeType: 'application/pdf',
              size: 1000,
              checksum: 'ab'.repeat(32),
            },
            activateOnDone: true,
          },
        },
      ],
      TEST_METADATA,
    );
    return flipbookId;
  };

  it('takes `direction` at creation (any letter case), shows it everywhere, and defaults to auto', async () => {
    const rtl = await createFlipbook(fx.c, { title: 'Kitab', direction: 'rtl' });
    const ltr = await createFlipbook(fx.c, { title: 'Book', direction: ' LTR ' });
    const auto = await createFlipbook(fx.c, { title: 'Either', direction: 'auto' });
    const none = await createFlipbook(fx.c, { title: 'Unsaid' });
    const expected: [string, string][] = [
      [rtl.flipbookId, 'rtl'],
      [ltr.flipbookId, 'ltr'],
      [auto.flipbookId, 'auto'],
      [none.flipbookId, 'auto'],
    ];
    const listed = (await fx.c.list('per_page=100')).body.flipbooks as {
      id: string;
      direction: string;
    }[];
    for (const [id, direction] of expected) {
      const shown = await fx.c.flipbook(id);
      expectJson(shown, 200);
      expect(shown.body.direction).toBe(direction);
      expect(listed.find((f) => f.id === id)?.direction).toBe(direction);
      expect((await reader(id))?.direction).toBe(direction === 'auto' ? null : direction);
    }
    // the past view (?at=) is built by the same projection
    const then = await fx.c.get(`/flipbooks/${rtl.flipbookId}?at=${fx.clock.now().toISOString()}`);
    expect(then.body.direction).toBe('rtl');
  });

  it('refuses any other direction with a 400, creating nothing', async () => {
    const count = async () => (await fx.c.list('per_page=100')).body.flipbooks.length as number;
    const n = await count();
    for (const bad of ['sideways', '', 'right-to-left', 'rtl ltr']) {
      expectJson(await fx.c.create(pdf(SMALL_PDF), { direction: bad }), 400, INVALID);
    }
    expect(await count()).toBe(n);
  });

  it('changes the direction with PATCH, answering and showing it; anything else is a 400', async () => {
    const { flipbookId } = await createFlipbook(fx.c, { title: 'Turning' });
    let reply = await patch(flipbookId, { direction: 'rtl' });
    expectJson(reply, 200);
    expect(reply.body.direction).toBe('rtl');
    expect((await fx.c.flipbook(flipbookId)).body.direction).toBe('rtl');
    expect((await reader(flipbookId))?.direction).toBe('rtl');

    // with other fields, and a field not sent leaves it
    reply = await patch(flipbookId, { title: 'Turned', description: 'x' });
    expect(reply.body).toMatchObject({ title: 'Turned', direction: 'rtl' });

    reply = await patch(flipbookId, { direction: 'auto' });
    expect(reply.body.direction).toBe('auto');
    expect((await reader(flipbookId))?.direction).toBe(null);

    for (const bad of ['RTL', 'up', ''])
      expectJson(await patch(flipbookId, { direction: bad }), 400, INVALID);
    expectJson(
      await patch(flipbookId, { direction: 1 }),
      400,
      'Invalid direction: must be a string',
    );
    expect((await fx.c.flipbook(flipbookId)).body.direction).toBe('auto');
  });

  it('tells the reader whether the title is still the file name, until a title is set', async () => {
    const named = await createFlipbook(
      fx.c,
      { title: 'Annual report' },
      pdf(SMALL_PDF, 'annual.pdf'),
    );
    expect(await reader(named.flipbookId)).toEqual({
      title: 'Annual report',
      title_from_file: false,
      direction: null,
    });
    // a given title equal to the file name is still a given title
    const same = await createFlipbook(fx.c, { title: 'annual.pdf' }, pdf(SMALL_PDF, 'annual.pdf'));
    expect((await reader(same.flipbookId))?.title_from_file).toBe(false);

    // no title (or a blank one): the API's title is the file name, per the spec
    for (const fields of [{}, { title: '  ' }] as Record<string, string>[]) {
      const unnamed = await createFlipbook(fx.c, fields, pdf(SMALL_PDF, 'annual.pdf'));
      expect((await fx.c.flipbook(unnamed.flipbookId)).body.title).toBe('annual.pdf');
      expect(await reader(unnamed.flipbookId)).toEqual({
        title: 'annual.pdf',
        title_from_file: true,
        direction: null,
      });
      // other edits keep it; setting a title ends it, even the file name's own
      expectJson(await patch(unnamed.flipbookId, { description: 'd', direction: 'ltr' }), 200);
      expect((await reader(unnamed.flipbookId))?.title_from_file).toBe(true);
      expectJson(await patch(unnamed.flipbookId, { title: 'annual.pdf' }), 200);
      expect(await reader(unnamed.flipbookId)).toEqual({
        title: 'annual.pdf',
        title_from_file: false,
        direction: 'ltr',
      });
    }
  });

  it('reads flipbooks created before either field: auto, and the title the file name’s when it is the same', async () => {
    const fromFile = await oldFlipbook('old.pdf', 'old.pdf');
    const titled = await oldFlipbook('Old report', 'old.pdf');
    expect(await reader(fromFile)).toEqual({
      title: 'old.pdf',
      title_from_file: true,
      direction: null,
    });
    expect(await reader(titled)).toEqual({
      title: 'Old report',
      title_from_file: false,
      direction: null,
    });
    expect((await fx.c.flipbook(fromFile)).body).toMatchObject({
      title: 'old.pdf',
      direction: 'auto',
    });

    // the decider reads them the same way: setting its file name's title again is recorded
    expectJson(await patch(fromFile, { title: 'old.pdf', direction: 'rtl' }), 200);
    expect(await reader(fromFile)).toEqual({
      title: 'old.pdf',
      title_from_file: false,
      direction: 'rtl',
    });
    const events = (await fx.c.get(`/flipbooks/${fromFile}/events`)).body.events as {
      type: string;
      data: Record<string, unknown>;
    }[];
    expect(events.at(-1)).toMatchObject({
      type: 'FlipbookEdited',
      data: { title: 'old.pdf', direction: 'rtl' },
    });
  });

  it('rebuilds both columns by replay exactly as they were', async () => {
    // one still titled by its file name (the CLI's publish in test/e2e/directionCli.e2e.test.ts)
    await createFlipbook(fx.c, {}, pdf(SMALL_PDF, 'kept.pdf'));
    const ids = ((await fx.c.list('per_page=100')).body.flipbooks as { id: string }[]).map(
      (f) => f.id,
    );
    expect(ids.length).toBeGreaterThan(10);
    const before = await Promise.all(ids.map((id) => findReaderFlipbook(fx.store.db, id)));
    // what `flipbook replay` runs
    await longWork(fx.store.pool, rebuildReadTables);
    const after = await Promise.all(ids.map((id) => findReaderFlipbook(fx.store.db, id)));
    expect(after).toEqual(before);
    expect(before.some((row) => row?.title_from_file)).toBe(true);
    expect(before.some((row) => row?.direction === 'rtl')).toBe(true);
  });
});
