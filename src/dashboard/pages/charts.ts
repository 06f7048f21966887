// Charts drawn on the server as SVG (issue 30's Statistics pages): no script, nothing fetched.
// The SVG holds shapes only and stretches to its box (preserveAspectRatio none, strokes that do
// not scale); every word and number around it is HTML, so it stays readable on a phone. Each
// chart is an image with a name (role=img, aria-label) and its figures follow as a table for
// anyone who cannot see it (./stats.ts).
import { type Html, html, trusted } from '../../http/html.ts';

const W = 1000;
const H = 300;

/** A round top for an axis: 1, 2, 5 × 10ⁿ at or above the largest value. */
export const niceTop = (max: number) => {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max) ?? 10;
  return step * power;
};

const n = (x: number) => Number(x.toFixed(2));

/** The frame every chart shares: its name, the top of its scale, its shapes, its start and end. */
const frame = (
  label: string,
  top: string,
  shapes: string,
  ends: [string, string],
  kind: string,
) => html`<figure class="chart ${kind}">
<div class="chart-plot">
<span class="chart-top" aria-hidden="true">${top}</span>
<svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${label}" focusable="false">
<line class="chart-base" x1="0" y1="${H}" x2="${W}" y2="${H}" vector-effect="non-scaling-stroke"/>
<line class="chart-grid" x1="0" y1="${H / 2}" x2="${W}" y2="${H / 2}" vector-effect="non-scaling-stroke"/>
${trusted(shapes)}
</svg>
</div>
<div class="chart-ends" aria-hidden="true"><span>${ends[0]}</span><span>${ends[1]}</span></div>
</figure>`;

/**
 * Columns for one series and a line for another on the same scale (pages seen and readers, day
 * by day). `format` writes the top of the scale.
 */
export const columnsAndLine = (options: {
  label: string;
  columns: number[];
  line: number[];
  ends: [string, string];
  format?: (n: number) => string;
}): Html => {
  const { columns, line } = options;
  const count = Math.max(columns.length, 1);
  const top = niceTop(Math.max(0, ...columns, ...line));
  const slot = W / count;
  const gap = count > 60 ? 0 : slot * 0.2;
  const y = (v: number) => H - (v / top) * H;
  const bars = columns
    .map((v, i) =>
      v > 0
        ? `<rect class="chart-col" x="${n(i * slot + gap / 2)}" y="${n(y(v))}" width="${n(slot - gap)}" height="${n(H - y(v))}"/>`
        : '',
    )
    .join('');
  const points = line.map((v, i) => `${n(i * slot + slot / 2)},${n(y(v))}`).join(' ');
  const path = line.length
    ? `<polyline class="chart-line" points="${points}" vector-effect="non-scaling-stroke"/>`
    : '';
  return frame(
    options.label,
    (options.format ?? String)(top),
    bars + path,
    options.ends,
    'columns',
  );
};

/** An area under a line from 0 to `top` (reach per page, as a share of those who opened). */
export const area = (options: {
  label: string;
  values: number[];
  top: number;
  ends: [string, string];
  format: (n: number) => string;
}): Html => {
  const { values, top } = options;
  const count = values.length;
  const x = (i: number) => (count <= 1 ? W / 2 : (i / (count - 1)) * W);
  const y = (v: number) => H - (Math.min(v, top) / top) * H;
  const points = values.map((v, i) => `${n(x(i))},${n(y(v))}`).join(' ');
  const shapes = count
    ? `<polygon class="chart-area" points="0,${H} ${points} ${W},${H}"/><polyline class="chart-line" points="${points}" vector-effect="non-scaling-stroke"/>`
    : '';
  return frame(options.label, options.format(top), shapes, options.ends, 'area');
};

/** Columns alone (time per page). */
export const columns = (options: {
  label: string;
  values: number[];
  ends: [string, string];
  format: (n: number) => string;
}): Html =>
  columnsAndLine({
    label: options.label,
    columns: options.values,
    line: [],
    ends: options.ends,
    format: options.format,
  });

/**
 * A bar inside a table cell: how much of the largest this row is. SVG, since the dashboard's CSP
 * refuses style attributes.
 */
export const meter = (value: number, max: number) =>
  html`<svg class="meter" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect width="${max > 0 ? n((value / max) * 100) : 0}" height="1"/></svg>`;
