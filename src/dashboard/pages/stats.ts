// The Statistics pages (issue 30; docs/dashboard.md, docs/privacy.md): one flipbook's figures
// (/dashboard/flipbooks/:id/stats) and the workspace's overview (/dashboard/stats), over a range
// of days chosen by links or a plain GET form (no script needed). Charts are SVG drawn here
// (./charts.ts), each followed by its figures as a table; owners switch counting and retention.
// One file (over 300 lines): the flipbook's and the workspace's figures share their range form,
// sources and tables; the charts are ./charts.ts.

import { domainToUnicode } from 'node:url';
import type { SignedIn } from '../../app/accounts/sessions.ts';
import type { WorkspaceStats } from '../../app/analytics/stats.ts';
import type { FlipbookStats } from '../../contract/stats.ts';
import { OTHER } from '../../domain/analytics/dailyCaps.ts';
import { ANALYTICS_DAYS_RANGE } from '../../domain/workspace/workspace.ts';
import { type Html, html } from '../../http/html.ts';
import { alert, dashboardPage } from '../layout.ts';
import { area, columns, columnsAndLine, meter } from './charts.ts';

/** The ranges offered as links: days up to today. */
export const PRESETS = [7, 30, 90, 365] as const;

/** 42 s, 3 min 5 s, 2.5 h. */
export const duration = (seconds: number) => {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${(s / 3600).toFixed(1)} h`;
};
const count = (n: number) => n.toLocaleString('en-US');
const percent = (n: number) => `${Math.round(n)}%`;

export type Settings = { enabled: boolean; retentionDays: number };

/** Links to the usual ranges and a form for any other, both plain GETs of this page. */
const rangePicker = (
  path: string,
  range: { from: string; to: string; days: number },
  today: string,
) => {
  const preset = range.to === today ? range.days : null;
  return html`<nav class="ranges" aria-label="Days shown">
<ul>
${PRESETS.map(
  (days) =>
    html`<li><a href="${path}?days=${days}"${preset === days ? html` aria-current="true"` : ''}>${days === 365 ? '12 months' : `${days} days`}</a></li>`,
)}
</ul>
<form method="get" action="${path}" class="range-form">
<label for="range-from">From</label>
<input id="range-from" name="from" type="date" value="${range.from}" required>
<label for="range-to">to</label>
<input id="range-to" name="to" type="date" value="${range.to}" required>
<button type="submit">Show</button>
</form>
</nav>`;
};

/** The headline figures, as a description list. */
const figures = (items: [string, string][]) => html`<dl class="figures">
${items.map(([name, value]) => html`<div><dt>${name}</dt><dd>${value}</dd></div>`)}
</dl>`;

/** The figures a chart shows, as a table for those who cannot see it (folded by default). */
const asTable = (caption: string, heads: string[], rows: (string | number | Html)[][]) =>
  html`<details class="chart-table">
<summary>${caption} as a table</summary>
<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}">
<table class="compact">
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${heads.map((h, i) => (i === 0 ? html`<th scope="col">${h}</th>` : html`<th scope="col" class="num">${h}</th>`))}</tr></thead>
<tbody>
${rows.map(
  (r) =>
    html`<tr>${r.map((cell, i) => (i === 0 ? html`<th scope="row">${cell}</th>` : html`<td class="num">${cell}</td>`))}</tr>`,
)}
</tbody>
</table>
</div>
</details>`;

const legend = html`<p class="legend" aria-hidden="true"><span class="key col">Pages seen</span> <span class="key line">Readers</span></p>`;

/** Views as columns and readers as a line, day by day, with its table. */
const overTime = (days: FlipbookStats['days']) => {
  const read = days.filter((d) => d.opens || d.views);
  return html`${legend}${columnsAndLine({
    label: `Pages seen and readers per day, ${days[0]?.date} to ${days.at(-1)?.date}`,
    columns: days.map((d) => d.views),
    line: days.map((d) => d.readers),
    ends: [days[0]?.date ?? '', days.at(-1)?.date ?? ''],
    format: count,
  })}
${
  read.length
    ? asTable(
        'Days with readings',
        ['Day', 'Opens', 'Readers', 'Pages seen', 'Reading time'],
        read.map((d) => [
          d.date,
          count(d.opens),
          count(d.readers),
          count(d.views),
          duration(d.read_seconds),
        ]),
      )
    : ''
}`;
};

/** A small table of names and counts with a bar each (referrers, devices). */
const ranked = (caption: string, rows: { name: string; opens: number }[], empty: string) => {
  if (rows.length === 0) return html`<p class="note">${empty}</p>`;
  const max = Math.max(...rows.map((r) => r.opens));
  return html`<table class="compact ranked">
<caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">${caption}</th><th scope="col" class="num">Opens</th><th scope="col"><span class="visually-hidden">Share</span></th></tr></thead>
<tbody>
${rows.map(
  (r) =>
    html`<tr><th scope="row">${r.name}</th><td class="num">${count(r.opens)}</td><td class="bar">${meter(r.opens, max)}</td></tr>`,
)}
</tbody>
</table>`;
};

/**
 * A referring site as people write it: `(direct)` and `(other)` (the sites past a day's cap,
 * src/state/analytics.ts) in words, an IDN host in its own letters.
 */
const siteName = (host: string) =>
  host === '(direct)'
    ? 'Direct, or not said'
    : host === OTHER
      ? 'Other sites'
      : domainToUnicode(host) || host;

const DEVICE_NAMES: Record<string, string> = {
  phone: 'Phones',
  tablet: 'Tablets',
  desktop: 'Computers',
};

/** A country's name in English from its ISO code (the runtime's own list), else the code. */
const countryName = (code: string) => {
  if (code === OTHER) return 'Other countries';
  if (!/^[A-Z]{2}$/.test(code)) return 'Not known';
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
};

const offNote = (settings: Settings, isOwner: boolean) =>
  settings.enabled
    ? ''
    : html`<p class="alert info" role="status">Reader analytics are off for this workspace: nothing new is counted.${isOwner ? html` <a href="/dashboard/stats#settings">Turn them on</a>.` : ''}</p>`;

type PageContext = {
  today: string;
  days: number;
  settings: Settings;
  error?: string;
  saved?: boolean;
};

/**
 * What both pages open with: what went wrong or was saved, whether counting is off, the range,
 * the totals (`more` after readers, opens and pages seen) and the days.
 */
const overview = (
  signedIn: SignedIn,
  path: string,
  s: Pick<FlipbookStats, 'from' | 'to' | 'readers' | 'opens' | 'views' | 'days'>,
  context: PageContext,
  more: [string, string][],
) => html`${alert(context.error ?? null)}
${context.saved ? alert('Saved.', 'ok') : ''}
${offNote(context.settings, signedIn.person.role === 'owner')}
${rangePicker(path, { from: s.from, to: s.to, days: context.days }, context.today)}
${figures([['Readers', count(s.readers)], ['Opens', count(s.opens)], ['Pages seen', count(s.views)], ...more])}
<section class="panel" aria-labelledby="time-title">
<h2 id="time-title">Over time</h2>
${overTime(s.days)}
</section>`;

export const flipbookStatsPage = (
  signedIn: SignedIn,
  book: { id: string; title: string },
  s: FlipbookStats,
  context: PageContext,
) => {
  const base = `/dashboard/flipbooks/${book.id}`;
  const path = `${base}/stats`;
  const query = `from=${s.from}&to=${s.to}`;
  const opened = Math.max(s.opens, s.pages[0]?.views ?? 0);
  const reach = s.pages.map((p) => (opened ? Math.min(100, (p.views / opened) * 100) : 0));
  const perView = s.pages.map((p) => (p.views ? p.seconds / p.views : 0));
  const last = s.pages.length;
  const pageEnds: [string, string] = ['Page 1', `Page ${last}`];
  return dashboardPage(
    signedIn,
    'stats',
    `Statistics: ${book.title}`,
    html`<div class="page-head">
<div class="head-main">
<p class="crumbs"><a href="/dashboard">Flipbooks</a> <a href="${base}">${book.title}</a></p>
<h1>Statistics</h1>
<p class="head-meta"><span>${s.from} to ${s.to} (UTC)</span><span>Counted without cookies; <a href="/dashboard/stats#about">what is counted</a></span></p>
</div>
</div>
${overview(signedIn, path, s, context, [
  ['Average reading', duration(s.average_read_seconds)],
  ['Searches', count(s.searches)],
  ['Downloads', count(s.downloads)],
  ['Zooms', count(s.zooms)],
])}
<section class="panel" aria-labelledby="reach-title">
<h2 id="reach-title">How far readers got</h2>
<p class="hint">Each page’s views against the readers who opened the flipbook: where the curve drops, readers stopped.</p>
${
  last
    ? html`${area({
        label: `Reach per page, page 1 to ${last}`,
        values: reach,
        top: 100,
        ends: pageEnds,
        format: percent,
      })}
<h3>Time per page</h3>
<p class="hint">How long a page stayed on screen each time it was seen, on average.</p>
${columns({
  label: `Average seconds on each page, page 1 to ${last}`,
  values: perView,
  ends: pageEnds,
  format: duration,
})}
${asTable(
  'Pages',
  ['Page', 'Views', 'Reach', 'Average time'],
  s.pages.map((p, i) => [
    p.position,
    count(p.views),
    percent(reach[i] ?? 0),
    duration(perView[i] ?? 0),
  ]),
)}`
    : html`<p class="note">No pages yet.</p>`
}
</section>
<div class="stats-grid">
<section class="panel" aria-labelledby="ref-title">
<h2 id="ref-title">Where readers came from</h2>
${ranked(
  'Site',
  s.referrers.map((r) => ({ ...r, name: siteName(r.name) })),
  'No readers yet.',
)}
</section>
<section class="panel" aria-labelledby="dev-title">
<h2 id="dev-title">Devices</h2>
${ranked(
  'Device',
  s.devices.map((d) => ({ ...d, name: DEVICE_NAMES[d.name] ?? d.name })),
  'No readers yet.',
)}
</section>
</div>
${
  s.countries.length
    ? html`<section class="panel" aria-labelledby="country-title">
<h2 id="country-title">Countries</h2>
${ranked(
  'Country',
  s.countries.map((c) => ({ ...c, name: countryName(c.name) })),
  '',
)}
</section>`
    : ''
}
<section class="panel" aria-labelledby="links-title">
<h2 id="links-title">Links followed</h2>
${
  s.links.length
    ? html`<table class="compact ranked">
<caption class="visually-hidden">Links followed, the most first</caption>
<thead><tr><th scope="col">Link</th><th scope="col" class="num">Clicks</th><th scope="col"><span class="visually-hidden">Share</span></th></tr></thead>
<tbody>
${s.links.map(
  (l) =>
    html`<tr><th scope="row">Page ${l.page}, link ${l.link + 1}</th><td class="num">${count(l.clicks)}</td><td class="bar">${meter(l.clicks, s.links[0]?.clicks ?? 0)}</td></tr>`,
)}
</tbody>
</table>`
    : html`<p class="note">No link on a page was followed in these days.</p>`
}
</section>
<section class="panel" aria-labelledby="share-title">
<h2 id="share-title">By share link</h2>
${
  s.share_links.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Readings by share link"><table class="compact">
<caption class="visually-hidden">Readings by share link</caption>
<thead><tr><th scope="col">For</th><th scope="col" class="num">Opens</th><th scope="col" class="num">Readers</th><th scope="col" class="num">Pages seen</th><th scope="col" class="num">Reading time</th></tr></thead>
<tbody>
${s.share_links.map(
  (l) =>
    html`<tr><th scope="row">${l.label ?? 'A revoked link'}</th><td class="num">${count(l.opens)}</td><td class="num">${count(l.readers)}</td><td class="num">${count(l.views)}</td><td class="num">${duration(l.read_seconds)}</td></tr>`,
)}
</tbody>
</table></div>`
    : html`<p class="note">No one read it through a <a href="${base}/links">share link</a> in these days.</p>`
}
</section>
<p class="downloads">Download as CSV: <a href="${path}.csv?${query}&amp;table=days" download>days</a>, <a href="${path}.csv?${query}&amp;table=pages" download>pages</a></p>`,
  );
};

export const workspaceStatsPage = (signedIn: SignedIn, s: WorkspaceStats, context: PageContext) => {
  const isOwner = signedIn.person.role === 'owner';
  const [least, most] = ANALYTICS_DAYS_RANGE;
  const { settings } = context;
  const csrf = html`<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">`;
  return dashboardPage(
    signedIn,
    'stats',
    'Statistics',
    html`<div class="page-head">
<div class="head-main">
<h1>Statistics</h1>
<p class="head-meta"><span>${signedIn.workspace.name}, ${s.from} to ${s.to} (UTC)</span></p>
</div>
</div>
${overview(signedIn, '/dashboard/stats', s, context, [['Reading time', duration(s.read_seconds)]])}
<section class="panel" aria-labelledby="books-title">
<h2 id="books-title">Flipbooks</h2>
${
  s.flipbooks.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Flipbooks, the most read first"><table class="compact">
<caption class="visually-hidden">Flipbooks, the most read first</caption>
<thead><tr><th scope="col">Flipbook</th><th scope="col" class="num">Opens</th><th scope="col" class="num">Readers</th><th scope="col" class="num">Pages seen</th><th scope="col" class="num">Reading time</th></tr></thead>
<tbody>
${s.flipbooks.map(
  (b) =>
    html`<tr><th scope="row"><a href="/dashboard/flipbooks/${b.id}/stats?from=${s.from}&amp;to=${s.to}">${b.title}</a></th><td class="num">${count(b.opens)}</td><td class="num">${count(b.readers)}</td><td class="num">${count(b.views)}</td><td class="num">${duration(b.read_seconds)}</td></tr>`,
)}
</tbody>
</table></div>`
    : html`<p class="note">No flipbooks yet.</p>`
}
</section>
<section class="panel" aria-labelledby="about-title" id="about">
<h2 id="about-title">What is counted</h2>
<p>The reader counts opens, the pages on screen and for how long, links followed, searches (never their words), downloads and zooms, the site a reader came from (its name only) and the kind of device. There is no cookie and nothing is stored in the reader’s browser. A reader is told apart from another for one day only, by a code made from their address and browser with a key that is deleted within a second of midnight (UTC); addresses are never stored. Robots, and browsers that ask not to be tracked (Do Not Track, Global Privacy Control), are not counted.</p>
</section>
<section class="panel" aria-labelledby="settings-title" id="settings">
<h2 id="settings-title">Settings</h2>
${
  isOwner
    ? html`<form method="post" action="/dashboard/stats/settings" class="stack">
${csrf}
<label class="check"><input type="checkbox" name="enabled" value="true"${settings.enabled ? html` checked` : ''}> Count readers of this workspace’s flipbooks</label>
<label for="retention">Days of figures kept</label>
<input id="retention" name="retention_days" type="number" inputmode="numeric" min="${least}" max="${most}" required value="${settings.retentionDays}" aria-describedby="retention-hint">
<p class="hint" id="retention-hint">Daily figures older than this are deleted (${least} to ${most} days).</p>
<button type="submit" class="primary">Save</button>
</form>`
    : html`<p>Readers are ${settings.enabled ? '' : 'not '}counted; daily figures are kept ${settings.retentionDays} days. An owner of the workspace can change this.</p>`
}
</section>`,
  );
};
