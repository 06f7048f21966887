// The dashboard's script and stylesheet (see src/http/staticAssets.ts), at /dashboard/assets/.
// The script only enhances: every form works without it.
import { join } from 'node:path';
import { findAssetIn, scriptAsset, stylesheetAsset } from '../http/staticAssets.ts';

export const DASHBOARD_SCRIPT = scriptAsset(
  'dashboard.js',
  join(import.meta.dirname, 'client', 'main.ts'),
);
export const DASHBOARD_STYLES = stylesheetAsset(
  'dashboard.css',
  join(import.meta.dirname, 'assets', 'dashboard.css'),
);

export const findDashboardAsset = (file: string) =>
  findAssetIn([DASHBOARD_SCRIPT, DASHBOARD_STYLES], file);

export const dashboardAssetUrl = (asset: { hashed: string }) => `/dashboard/assets/${asset.hashed}`;
