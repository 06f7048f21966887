// What a preview found, in words a pull request shows: the one-line summary `flipbook publish
// --preview` prints, and the Markdown comment (`--markdown FILE`, the GitHub Action's comment, a
// GitLab note). One definition for all of them, so a reviewer reads the same thing everywhere.
// Pure: no I/O, so the tests check the text itself.
import type { Preview } from '../../../src/contract/previews.ts';

/** The hidden line a comment carries, so a later push updates that comment instead of adding one. */
export const commentMarker = (slug: string) => `<!-- flipbook-preview: ${slug} -->`;

/** At most this many changed pages get a row; the rest are counted (a comment stays readable). */
export const MAX_ROWS = 20;

const plural = (n: number, one: string, many = `${one}s`) => (n === 1 ? one : many);

/** "3 pages changed, 1 inserted, 1 removed", "No page changed (12 pages)", or why there is no comparison. */
export const summaryLine = (preview: Preview): string => {
  if (preview.status === 'error') return `Processing failed: ${preview.error_reason ?? 'unknown'}`;
  const compare = preview.compare;
  if (!compare) return preview.status === 'done' ? 'Comparing…' : 'Processing…';
  if (compare.failure) return `Not compared: ${compare.failure}`;
  const counts = [
    [compare.changed.length, 'changed'],
    [compare.inserted.length, 'inserted'],
    [compare.removed.length, 'removed'],
    [compare.moved.length, 'moved'],
  ] as const;
  const parts = counts.filter(([n]) => n > 0);
  if (parts.length === 0)
    return `No page changed (${compare.pages_after} ${plural(compare.pages_after, 'page')})`;
  return parts
    .map(([n, what], i) => (i === 0 ? `${n} ${plural(n, 'page')} ${what}` : `${n} ${what}`))
    .join(', ');
};

const listOf = (positions: number[]) =>
  `${plural(positions.length, 'page')} ${positions.join(', ')}`;

const thumbnail = (src: string, alt: string, href: string) =>
  `<a href="${href}"><img src="${src}" alt="${alt}" width="160"></a>`;

export type ReportOptions = { slug: string };

/**
 * The pull-request comment: the summary, the preview's link, a table of the changed pages with
 * before and after (the changes outlined) thumbnails (each a link to the compare view), the pages inserted and removed.
 */
export const previewMarkdown = (preview: Preview, { slug }: ReportOptions): string => {
  const lines = [
    commentMarker(slug),
    `### Flipbook preview of \`${slug}\`: ${summaryLine(preview)}`,
    '',
  ];
  const compare = preview.compare;
  lines.push(
    `[Open the preview](${preview.preview_url}) (\`${preview.name}\`, ${preview.pages} ${plural(preview.pages, 'page')})` +
      (compare?.against_version_id
        ? `, compared with the live version (${compare.pages_before} ${plural(compare.pages_before, 'page')}).`
        : '.'),
  );
  if (compare && !compare.failure && compare.changed.length > 0) {
    lines.push('', '| Page | Before | After (changes outlined) | Changed areas |', '|---|---|---|---|');
    for (const page of compare.changed.slice(0, MAX_ROWS)) {
      const where =
        page.before === page.after ? `${page.after}` : `${page.after} (was ${page.before})`;
      lines.push(
        `| [${where}](${page.compare_url}) | ${thumbnail(page.before_image, `Page ${page.before} before`, page.compare_url)} | ${thumbnail(page.diff_image, `Page ${page.after} after, changes outlined`, page.compare_url)} | ${page.regions.length} |`,
      );
    }
    const more = compare.changed.length - MAX_ROWS;
    if (more > 0) lines.push('', `…and ${more} more changed ${plural(more, 'page')} in the preview.`);
  }
  if (compare && !compare.failure) {
    if (compare.inserted.length > 0) lines.push('', `**Inserted:** ${listOf(compare.inserted)}.`);
    if (compare.removed.length > 0)
      lines.push('', `**Removed:** ${listOf(compare.removed)} of the live version.`);
    if (compare.moved.length > 0)
      lines.push(
        '',
        `**Moved:** ${compare.moved.map((m) => `page ${m.before} → ${m.after}`).join(', ')}.`,
      );
  }
  return `${lines.join('\n')}\n`;
};

/** The comment once the pull request is closed: what became of the preview. */
export const closedMarkdown = (
  slug: string,
  outcome: { merged: true; url: string } | { merged: false } | { gone: true; merged: boolean },
): string =>
  `${commentMarker(slug)}\n### Flipbook preview of \`${slug}\`\n\n${
    'gone' in outcome
      ? `${outcome.merged ? 'Merged' : 'Closed without merging'}: the preview was already gone (deleted, or swept as too old), so nothing ${outcome.merged ? 'was promoted: publish the merged PDF to make it live' : 'was left to delete'}.`
      : outcome.merged
        ? `Merged: the reviewed version is now live at ${outcome.url}.`
        : 'Closed without merging: the preview was deleted.'
  }\n`;
