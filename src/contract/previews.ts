// A flipbook's previews (beyond the spec; docs/ci.md): the shapes the API answers with and takes,
// one definition each.
import { type Static, Type } from '@sinclair/typebox';
import { MAX_PREVIEWS, PREVIEW_NAME_RULE } from '../domain/flipbook/previews.ts';
import { Count, DateTime, Named, Uuid } from './common.ts';
import { SlugParams } from './flipbooks.ts';
import { createdAtUnix, estimatedSeconds, uploadedSize, VersionStatusName } from './versions.ts';

const name = Type.String({
  pattern: '^[a-z0-9_-][a-z0-9._-]{0,63}$',
  description: `The preview's name, chosen by its caller (e.g. \`pr-128\`). ${PREVIEW_NAME_RULE}.`,
});
const previewUrl = Type.String({
  format: 'uri',
  description:
    'Its reader: an unguessable address that opens without signing in, whatever the flipbook’s visibility; never indexed, never cached publicly',
});

export const PreviewParams = Type.Object({ ...SlugParams.properties, name });

/** The comparison with the version that was live, in counts (what changed, page by page: docs/ci.md). */
export const PreviewCompare = Type.Union([
  Type.Object({
    against_version_id: Type.Union([Uuid('The version compared with'), Type.Null()]),
    pages_before: Count('Pages of the version compared with'),
    pages_after: Count('Pages of the preview'),
    changed: Count('Pages aligned with one before that differ'),
    inserted: Count('Pages with none before'),
    removed: Count('Pages before with none in the preview'),
    unchanged: Count('Pages alike'),
    failure: Type.Optional(Type.String({ description: 'Why no comparison could be made' })),
  }),
  Type.Null(),
]);

export const Preview = Named('Preview', {
  name,
  flipbook_id: Uuid('Its flipbook'),
  version_id: Uuid('The version it shows (replaced by each new push)'),
  status: VersionStatusName,
  pages: Count('Number of pages; 0 while pending'),
  pages_done: Count('Pages ready so far'),
  error_reason: Type.Optional(
    Type.String({ description: 'Only when status is error: why processing failed' }),
  ),
  preview_url: previewUrl,
  created_at: DateTime('When a preview was first published under this name'),
  updated_at: DateTime('When its version was last pushed'),
  compare: PreviewCompare,
});
export type Preview = Static<typeof Preview>;

export const PreviewList = Named('PreviewList', {
  previews: Type.Array(Preview, {
    maxItems: MAX_PREVIEWS,
    description: `The flipbook’s previews, the latest pushed first (at most ${MAX_PREVIEWS})`,
  }),
});
export type PreviewList = Static<typeof PreviewList>;

export const PreviewCreated = Named('PublishPreviewResponse', {
  name,
  flipbook_id: Uuid('The flipbook with this slug: the one there was, or the one made now'),
  version_id: Uuid('The preview’s new version'),
  slug: Type.String({ description: 'The slug, as the flipbook has it' }),
  created: Type.Boolean({
    description: 'true when this request made the flipbook (with no live version until a publish)',
  }),
  status: Type.Literal('pending', { description: 'Status of the new version' }),
  preview_url: previewUrl,
  file_size: uploadedSize(),
  estimated_seconds: estimatedSeconds,
  created_at_unix: createdAtUnix,
});
export type PreviewCreated = Static<typeof PreviewCreated>;

export const Promoted = Named('PromotePreviewResponse', {
  success: Type.Literal(true),
  flipbook_id: Uuid('Its flipbook'),
  active_version_id: Uuid('The preview’s version, now the active one'),
});
export type Promoted = Static<typeof Promoted>;
