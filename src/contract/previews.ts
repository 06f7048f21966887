// A flipbook's previews (beyond the spec; docs/ci.md): the shapes the API answers with and takes,
// one definition each.
import { type Static, Type } from '@sinclair/typebox';
import { MAX_PREVIEWS, PREVIEW_NAME_RULE } from '../domain/flipbook/previews.ts';
import { Count, DateTime, Named, Uuid } from './common.ts';
import { SlugParams } from './flipbooks.ts';
import { uploadAccepted, VersionStatusName } from './versions.ts';

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

const page = (description: string) => Type.Integer({ minimum: 1, description });
const image = (description: string) => Type.String({ format: 'uri', description });

/** A page of the preview aligned with one before that differs, and where (docs/ci.md). */
export const ChangedPage = Type.Object({
  before: page('Its position in the version compared with'),
  after: page('Its position in the preview'),
  regions: Type.Array(
    Type.Array(Type.Number({ minimum: 0, maximum: 1 }), { minItems: 4, maxItems: 4 }),
    {
      maxItems: 64,
      description:
        'The changed areas, each `[x, y, w, h]` in fractions of the page (0 to 1, from the top left)',
    },
  ),
  compare_url: image('The reader at the preview, showing this page before and after'),
  before_image: image('A thumbnail of the page before'),
  after_image: image('A thumbnail of the page in the preview'),
  diff_image: image('A thumbnail of the preview’s page with the changed areas marked'),
});
export type ChangedPage = Static<typeof ChangedPage>;

/**
 * What changed, page by page, against the version that was live when the preview was done
 * (computed once; null until then). Pages are aligned first, so a page inserted or removed does
 * not make every later one changed.
 */
export const PreviewCompare = Type.Union([
  Type.Object({
    against_version_id: Type.Union([Uuid('The version compared with'), Type.Null()]),
    pages_before: Count('Pages of the version compared with'),
    pages_after: Count('Pages of the preview'),
    changed: Type.Array(ChangedPage, { description: 'Pages aligned with one before that differ' }),
    inserted: Type.Array(page('A position in the preview'), {
      description: 'Pages of the preview with none before',
    }),
    removed: Type.Array(page('A position in the version compared with'), {
      description: 'Pages before with none in the preview',
    }),
    moved: Type.Array(
      Type.Object({
        before: page('Its position in the version compared with'),
        after: page('Its position in the preview'),
      }),
      { description: 'Pages alike found at another place (neither inserted nor removed)' },
    ),
    unchanged: Count('Pages alike, in their place'),
    failure: Type.Optional(
      Type.String({
        description:
          'Why no comparison could be made (no live version, or it failed); the preview still works',
      }),
    ),
  }),
  Type.Null(),
]);
export type PreviewCompare = Static<typeof PreviewCompare>;

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
  reading: Type.Object(
    {
      opens: Count('Times its reader was opened'),
      readers: Count('Readers, counted as the flipbook’s statistics count them (a day each)'),
      read_seconds: Type.Number({ minimum: 0, description: 'Time spent reading it, in seconds' }),
    },
    {
      description:
        'Its own reading figures (when its workspace counts readers): apart from the flipbook’s, never in them',
    },
  ),
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
  ...uploadAccepted(),
});
export type PreviewCreated = Static<typeof PreviewCreated>;

export const Promoted = Named('PromotePreviewResponse', {
  success: Type.Literal(true),
  flipbook_id: Uuid('Its flipbook'),
  active_version_id: Uuid('The preview’s version, now the active one'),
});
export type Promoted = Static<typeof Promoted>;
