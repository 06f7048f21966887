// A flipbook's reading figures (beyond the spec; docs/privacy.md): GET /flipbooks/:id/stats.
import { statsOf } from '../../app/analytics/stats.ts';
import {
  DEFAULT_STATS_DAYS,
  FlipbookStats,
  MAX_STATS_DAYS,
  StatsQuery,
} from '../../contract/stats.ts';
import { error } from '../endpoint.ts';
import { apiEndpoint, FlipbookParams, flipbookNotFound } from './declare.ts';

const INVALID_DAY = 'a day as YYYY-MM-DD, e.g. 2026-11-28';

export const STATS_ENDPOINTS = [
  apiEndpoint({
    method: 'get',
    path: '/flipbooks/:id/stats',
    operationId: 'getFlipbookStats',
    tag: 'stats',
    summary: 'A flipbook’s reading figures (beyond the spec)',
    description: `What readers did, day by day over \`from\`–\`to\` (UTC, inclusive; the last ${DEFAULT_STATS_DAYS} days by default, at most ${MAX_STATS_DAYS}): opens, pages seen and for how long, readers, how far they got (views per page), links followed, where they came from, their kind of device, and each share link's part. Counted by the reader without cookies and without keeping anything that identifies a reader; not counted: robots, and readers whose browser sends Do Not Track or Global Privacy Control. Figures appear within seconds. Nothing is counted for a workspace that switched analytics off.`,
    params: FlipbookParams,
    query: StatsQuery,
    queryInvalid: { from: `Invalid from: ${INVALID_DAY}`, to: `Invalid to: ${INVALID_DAY}` },
    ok: { status: 200, description: 'The figures over the range', schema: FlipbookStats },
    errors: {
      400: error(
        `\`Invalid flipbook ID\`, \`Invalid from: ${INVALID_DAY}\` (also a day that does not exist), \`Invalid to: …\`, \`Invalid range: from is after to\`, \`Invalid range: at most ${MAX_STATS_DAYS} days at once\`, or \`Workspace not found\``,
      ),
      404: flipbookNotFound,
    },
    handle: ({ caller, params, query }, deps) =>
      statsOf(deps, caller.workspaceId, params.id, query),
  }),
];
