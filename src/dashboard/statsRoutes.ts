// The Statistics pages (./pages/stats.ts): a flipbook's figures and their CSV, the workspace's
// overview, and its settings (owners: counting on or off, days kept). The figures are the API's
// own (src/app/analytics/stats.ts); another workspace's flipbook is a 404 like everywhere.
import type { ServerResponse } from 'node:http';
import { requireOwner } from '../app/accounts/people.ts';
import type { SignedIn } from '../app/accounts/sessions.ts';
import { statsOf, workspaceStatsOf } from '../app/analytics/stats.ts';
import { flipbookTitle } from '../app/flipbooks.ts';
import { analyticsSettings, setAnalytics } from '../app/workspaces.ts';
import { statsCsv } from '../contract/statsCsv.ts';
import { AppError, InvalidInput, NotFound } from '../domain/errors.ts';
import { redirect } from '../http/respond.ts';
import { queryOf, type Request } from '../http/server.ts';
import { flipbookView, idOf } from './flipbookView.ts';
import { type DashboardRoute, type Kit, signedInRoute } from './kit.ts';
import { flipbookStatsPage, PRESETS, type Settings, workspaceStatsPage } from './pages/stats.ts';
import { sendCsv, sendPage } from './request.ts';

const DAY_MS = 86_400_000;

/**
 * The range a page asks for: `from`/`to`, or `days` up to today (one of the presets), or the
 * last 30 days. Returned as the query statsRange reads, with how many days it spans.
 */
const rangeOf = (req: Request, today: string) => {
  const params = queryOf(req);
  const days = Number(params.get('days'));
  if ((PRESETS as readonly number[]).includes(days)) {
    const from = new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * DAY_MS);
    return { from: from.toISOString().slice(0, 10), to: today };
  }
  const from = params.get('from') || undefined;
  const to = params.get('to') || undefined;
  return { from, to };
};
const spanOf = (r: { from: string; to: string }) =>
  Math.round((Date.parse(r.to) - Date.parse(r.from)) / DAY_MS) + 1;

export const statsRoutes = (kit: Kit): DashboardRoute[] => {
  const declared: DashboardRoute[] = [];
  const { deps } = kit;
  const { caller } = flipbookView(kit);
  const today = () => deps.clock.now().toISOString().slice(0, 10);

  const settingsOf = (signedIn: SignedIn): Promise<Settings> =>
    analyticsSettings(deps.store.db, signedIn.workspace.id);

  /** A range refused (a day that is not one, from after to) shows the default with why. */
  const withRange = async <T>(
    req: Request,
    read: (range: { from?: string; to?: string }) => Promise<T>,
  ): Promise<{ figures: T; error?: string }> => {
    try {
      return { figures: await read(rangeOf(req, today())) };
    } catch (error) {
      if (!(error instanceof InvalidInput)) throw error;
      return { figures: await read({}), error: error.message };
    }
  };

  const bookStats = async (req: Request, signedIn: SignedIn) => {
    const who = caller(req, signedIn);
    return withRange(req, (range) => statsOf(deps, who.workspaceId, idOf(req), range));
  };

  declared.push(
    signedInRoute.page('/dashboard/flipbooks/:id/stats', async (req, res, signedIn) => {
      const { figures, error } = await bookStats(req, signedIn);
      const title = (await titleOf(req, signedIn)) ?? '';
      sendPage(
        res,
        200,
        flipbookStatsPage(signedIn, { id: figures.flipbook_id, title }, figures, {
          today: today(),
          days: spanOf(figures),
          settings: await settingsOf(signedIn),
          ...(error ? { error } : {}),
        }),
      );
    }),
  );

  declared.push(
    signedInRoute.page('/dashboard/flipbooks/:id/stats.csv', async (req, res, signedIn) => {
      const who = caller(req, signedIn);
      const figures = await statsOf(deps, who.workspaceId, idOf(req), rangeOf(req, today()));
      const table = queryOf(req).get('table');
      if (table !== 'days' && table !== 'pages') throw new NotFound('No such table');
      sendCsv(
        res,
        `flipbook-${figures.flipbook_id}-${table}-${figures.from}-${figures.to}.csv`,
        statsCsv(figures, table),
      );
    }),
  );

  const showWorkspace = async (
    req: Request,
    res: ServerResponse,
    signedIn: SignedIn,
    status = 200,
    notes: { error?: string; saved?: boolean } = {},
  ) => {
    const { figures, error } = await withRange(req, (range) =>
      workspaceStatsOf(deps, signedIn.workspace.id, range),
    );
    sendPage(
      res,
      status,
      workspaceStatsPage(signedIn, figures, {
        today: today(),
        days: spanOf(figures),
        settings: await settingsOf(signedIn),
        ...(notes.error || error ? { error: notes.error ?? error } : {}),
        ...(notes.saved ? { saved: true } : {}),
      }),
    );
  };

  declared.push(
    signedInRoute.page('/dashboard/stats', async (req, res, signedIn) => {
      await showWorkspace(req, res, signedIn, 200, { saved: queryOf(req).get('saved') === '1' });
    }),
  );

  declared.push(
    signedInRoute.form('/dashboard/stats/settings', async (req, res, signedIn, form) => {
      requireOwner(signedIn.person);
      const days = form.get('retention_days') ?? '';
      try {
        if (!/^\d{1,5}$/.test(days.trim())) {
          throw new InvalidInput('Days kept must be a whole number');
        }
        await setAnalytics(
          deps.store,
          signedIn.workspace.id,
          { enabled: form.get('enabled') === 'true', retentionDays: Number(days) },
          signedIn.caller(kit.context(req)).metadata,
          deps.clock.now(),
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 400) throw error;
        return showWorkspace(req, res, signedIn, 400, { error: error.message });
      }
      redirect(res, '/dashboard/stats?saved=1#settings');
    }),
  );

  /** The flipbook's title, for the page's heading (its figures were already found). */
  const titleOf = async (req: Request, signedIn: SignedIn) =>
    flipbookTitle(deps.store.db, signedIn.workspace.id, idOf(req));
  return declared;
};
