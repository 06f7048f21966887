// The Statistics pages' answers without a browser (the app in process,
// test/support/dashboardSpec.ts): a range that is not one refused in words, the days as CSV,
// the workspace's analytics settings (owners only, a value out of range refused in words; off,
// the reader carries no token; the change in the audit trail with who made it), another
// workspace's flipbook without statistics here. The charts as drawn, the range links and form
// in a browser, axe and the screenshots are test/e2e/dashboardStats.e2e.test.ts's.
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_LINKS } from '../../src/state/analytics.ts';
import { client, createFlipbook, markDone } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import {
  alertsOf,
  dashboardOf,
  inputValueOf,
  rowsOf,
  statusesOf,
  textOf,
} from '../support/dashboardSpec.ts';
import { appFetch } from '../support/inProcess.ts';

const DAY_MS = 86_400_000;

describe('the Statistics pages', () => {
  const app = useApp();
  const d = () => dashboardOf(app);
  let book: { flipbookId: string; versionId: string };
  const today = () => app.clock.now().toISOString().slice(0, 10);
  const dayBefore = (n: number) =>
    new Date(app.clock.now().getTime() - n * DAY_MS).toISOString().slice(0, 10);

  beforeAll(async () => {
    book = await createFlipbook(app.c, { title: 'Spring catalogue 2027' });
    await markDone(app.store, book.flipbookId, book.versionId, 24);
    // Two days of readings, as the counting leaves them (the reading itself is
    // test/e2e/analytics.e2e.test.ts's).
    for (const day of [dayBefore(1), today()]) {
      await app.store.db.query(
        `INSERT INTO analytics_daily (flipbook_id, day, link_key, opens, views, readers, read_seconds)
         VALUES ($1, $2, '00000000-0000-0000-0000-000000000000', 40, 360, 32, 5220),
                ($1, $2, '${ALL_LINKS}', 0, 0, 34, 0)`,
        [book.flipbookId, day],
      );
    }
  });

  it('refuses a range that is not one, in words, and gives the days as CSV', async () => {
    const stan = await d().signedIn('stats-owner@example.com');
    const stats = `/dashboard/flipbooks/${book.flipbookId}/stats`;
    // A range that is not one: said, and the last 30 days shown.
    const odd = await stan.get(`${stats}?from=2026-02-30`);
    expect(alertsOf(odd.text)[0]).toMatch(/^Invalid from: a day/);
    // The days as CSV.
    const csv = await stan.get(`${stats}.csv?from=${dayBefore(1)}&to=${today()}&table=days`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe('date,opens,views,readers,read_seconds');
    expect(lines).toHaveLength(4);
  });

  it('gives owners the workspace’s settings; off, the reader carries no token; members only read them', async () => {
    const owner = await d().signedIn('owner-stats@example.com');
    const overview = await owner.get('/dashboard/stats');
    expect(rowsOf(overview.text, 'Spring catalogue 2027')).toHaveLength(1);

    const carriesToken = async () =>
      (await (await appFetch(`${app.base}/f/${book.flipbookId}`)).text()).includes('"beacon"');
    expect(await carriesToken()).toBe(true);
    // A number out of range is refused in words (past the browser's own check).
    const refused = await owner.post('/dashboard/stats/settings', {
      enabled: 'true',
      retention_days: '3',
    });
    expect(refused.status).toBe(400);
    expect(alertsOf(refused.text)).toEqual(['Days kept must be a whole number from 7 to 3650']);
    // Unchecked, the box sends nothing.
    const off = await owner.post('/dashboard/stats/settings', { retention_days: '90' });
    expect(off.url).toMatch(/saved=1/);
    expect(inputValueOf(off.text, 'retention')).toBe('90');
    expect(statusesOf(off.text).filter((s) => s.includes('analytics are off'))).toHaveLength(1);
    expect(await carriesToken()).toBe(false);
    // Recorded, with who did it.
    const changed = (await d().auditLog()).filter((e) => e.type === 'WorkspaceAnalyticsChanged');
    expect(changed.map((e) => e.data)).toMatchObject([{ enabled: false, retentionDays: 90 }]);
    expect(changed[0]?.metadata.actor).toMatchObject({ email: 'owner-stats@example.com' });
    const on = await owner.post('/dashboard/stats/settings', {
      enabled: 'true',
      retention_days: '90',
    });
    expect(on.url).toMatch(/saved=1/);
    expect(await carriesToken()).toBe(true);

    // A member sees the figures and the settings, and cannot change them.
    const member = await d().signedIn('member-stats@example.com', { role: 'member' });
    const theirs = await member.get('/dashboard/stats');
    expect(theirs.text).not.toContain('id="retention"');
    const settings = /<section [^>]*id="settings">[\s\S]*?<\/section>/.exec(theirs.text)?.[0];
    expect(textOf(settings ?? '')).toMatch(/kept 90 days/);
    // The form, posted by hand with the member's own session and token.
    const forced = await member.post('/dashboard/stats/settings', {
      enabled: 'false',
      retention_days: '30',
    });
    expect(forced.status).toBe(403);
    expect(forced.text).toContain('Only owners');

    // Another workspace's flipbook has no statistics here.
    const other = await app.newWorkspace('rivals');
    const rivals = await createFlipbook(client(app.api, other.key), { title: 'Theirs' });
    expect((await owner.get(`/dashboard/flipbooks/${rivals.flipbookId}/stats`)).status).toBe(404);
  });
});
