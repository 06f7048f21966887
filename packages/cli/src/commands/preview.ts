// `flipbook preview list|delete|promote --slug S [NAME]`: a slug's previews (docs/ci.md). They
// are published by `flipbook publish FILE --slug S --preview NAME`; promoting one makes exactly
// that version live (no new upload, no new render), deleting one ends its URL.
import type { Command } from 'commander';
import { checkPreviewName } from '../../../../src/domain/flipbook/previews.ts';
import { apiClient } from '../client/apiClient.ts';
import { CliError, EXIT } from '../client/cliErrors.ts';
import { type ClientFlags, connectionFrom, withClientOptions } from '../clientOptions.ts';
import { flagSlug } from '../fieldFlags.ts';
import { printTable, safe } from '../output.ts';
import { summaryLine } from '../previewReport.ts';

type Flags = ClientFlags & { slug: string };

/** NAME by the server's own rule: a usage error (exit 2) before anything is sent. */
const argName = (text: string) => {
  try {
    return checkPreviewName(text);
  } catch (error) {
    throw new CliError(EXIT.usage, (error as Error).message);
  }
};

/** The slug and the client: both checked before anything is sent. */
const target = async (flags: Flags) => {
  const slug = flagSlug(flags.slug);
  return { slug, client: apiClient(await connectionFrom(flags)) };
};

export const registerPreview = (program: Command) => {
  const preview = program
    .command('preview')
    .description(
      "a slug's previews: versions published with `publish --slug S --preview NAME`, never live until promoted",
    );
  const slugOption = (command: Command) =>
    withClientOptions(command).requiredOption('--slug <slug>', 'the flipbook’s slug');

  slugOption(
    preview.command('list').description("list a slug's previews, the latest pushed first"),
  ).action(async (flags: Flags) => {
    const { slug, client } = await target(flags);
    const listed = await client.previews.list(slug);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(listed)}\n`);
      return;
    }
    printTable(
      listed.previews.map((p) => ({
        name: p.name,
        status: p.status,
        pages: p.pages,
        changes: summaryLine(p),
        updated: p.updated_at,
        url: p.preview_url,
      })),
      ['name', 'status', 'pages', 'changes', 'updated', 'url'],
    );
  });

  slugOption(
    preview
      .command('delete <name>')
      .description('delete a preview: its URL answers 404, its version and files are gone'),
  ).action(async (nameText: string, flags: Flags) => {
    const name = argName(nameText);
    const { slug, client } = await target(flags);
    await client.previews.remove(slug, name);
    if (flags.json) process.stdout.write(`${JSON.stringify({ name, slug, deleted: true })}\n`);
    else process.stdout.write(`deleted preview ${safe(name)} of ${safe(slug)}\n`);
  });

  slugOption(
    preview
      .command('promote <name>')
      .description(
        'make exactly the previewed version live (no new upload or render); prints the reader URL',
      ),
  ).action(async (nameText: string, flags: Flags) => {
    const name = argName(nameText);
    const { slug, client } = await target(flags);
    const promoted = await client.previews.promote(slug, name);
    // The answer names the flipbook, not its address: the reader URL is the flipbook's.
    const { url } = await client.show(promoted.flipbook_id);
    if (flags.json) process.stdout.write(`${JSON.stringify({ ...promoted, url })}\n`);
    else process.stdout.write(`${url}\n`);
  });
};
