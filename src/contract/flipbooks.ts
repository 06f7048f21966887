// Flipbooks: the spec's Flipbook (one, and as listed), the list and its query, what creating one
// answers, and the edits PATCH /flipbooks/:id takes (beyond the spec).
import { type Static, Type } from '@sinclair/typebox';
import { MAX_EMBED_ORIGINS, VISIBILITIES } from '../domain/flipbook/access.ts';
import {
  DIRECTIONS,
  MAX_DESCRIPTION,
  MAX_SLUG,
  MAX_TITLE,
  SLUG_PATTERN,
} from '../domain/flipbookFields.ts';
import { Closed, DateTime, Defaulted, Named, Paging, StringEnum, Uuid } from './common.ts';
import { Page, uploadAccepted, Version } from './versions.ts';

export const FLIPBOOK_STATUSES = ['published', 'archived'] as const;
/** What a flipbook's reader URL shows now (beyond the spec's status, which says only archived). */
export const AVAILABILITIES = ['available', 'unpublished', 'failed', 'archived'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

const title = (description: string) => Type.String({ maxLength: MAX_TITLE, description });
const slug = (description: string) =>
  Type.String({ maxLength: MAX_SLUG, pattern: SLUG_PATTERN.source, description });
const description = (text: string) =>
  Type.String({ maxLength: MAX_DESCRIPTION, description: text });
const status = (text: string) => StringEnum(FLIPBOOK_STATUSES, { description: text });
const direction = (text: string) => StringEnum(DIRECTIONS, { description: text });
const visibility = (text: string) => StringEnum(VISIBILITIES, { description: text });
const embedOrigins = (text: string) =>
  Type.Array(Type.String({ maxLength: 300 }), { maxItems: MAX_EMBED_ORIGINS, description: text });

/** The fields of a flipbook, shared by the list item and the full flipbook. */
const flipbookFields = {
  id: Uuid('Flipbook id'),
  title: title(
    'Title; the uploaded file name when none was given at creation (until one is set, the reader shows the PDF’s own title when it has one)',
  ),
  slug: Type.String({
    description:
      'Readable name, unique in the workspace: lowercase words joined by hyphens, made from the title unless given',
  }),
  description: Type.String({ description: 'Description; empty unless set' }),
  direction: direction(
    'Beyond the spec: how the reader turns pages, `ltr` or `rtl` as chosen, or `auto` (the PDF’s own: its viewer preferences, else the script of its text)',
  ),
  status: status(
    '`archived` flipbooks are listed under status=archived; their reader is not available',
  ),
  availability: StringEnum(AVAILABILITIES, {
    description:
      'Beyond the spec: what its reader URL shows now: `available` (its active version, to whom `visibility` lets in), `unpublished` (no version processed yet: a 404 until one is), `failed` (every version failed processing: a 404 until a new version is processed), `archived` (“not available”)',
  }),
  visibility: visibility(
    'Beyond the spec: who may read it (docs/access.md): `public` (anyone with its link), `workspace` (the workspace’s members, signed in), `links` (only through its share links)',
  ),
  embed_origins: embedOrigins(
    'Beyond the spec: the sites that may frame its reader (e.g. `https://example.com`); empty: any site for a public flipbook, none for another',
  ),
  allow_download: Type.Boolean({
    description:
      'Beyond the spec: whether its readers may download it as a PDF (the reader’s Download button; a share link may still say no); PATCH sets it',
  }),
  url: Type.String({ format: 'uri', description: 'Absolute URL of the reader view' }),
  created_at: DateTime('When the flipbook was created'),
  updated_at: DateTime('When the flipbook or one of its versions last changed'),
};

export const FlipbookListItem = Named(
  'FlipbookListItem',
  {
    ...flipbookFields,
    versions: Type.Array(Version, {
      maxItems: 1,
      description: 'The active version, or nothing before a version is active',
    }),
  },
  { description: 'A flipbook as listed: its active version only, no pages' },
);
export type FlipbookListItem = Static<typeof FlipbookListItem>;

export const Flipbook = Named(
  'Flipbook',
  {
    ...flipbookFields,
    versions: Type.Array(Version, { description: 'All versions, newest first' }),
    pages: Type.Array(Page, {
      description: 'Pages of the active version, by position; empty before a version is active',
    }),
  },
  { description: 'A flipbook with all its versions and the pages of its active version' },
);
export type Flipbook = Static<typeof Flipbook>;

/** GET /flipbooks: bounds, defaults and choices the parser (src/http/listQuery.ts) enforces. */
export const LIST_SORTS = ['created_at', 'updated_at', 'title'] as const;
export const LIST_DIRS = ['asc', 'desc'] as const;
export const ListFlipbooksQuery = Closed({
  ...Paging(20, 'Items per page'),
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Case-insensitive substring of the title (trimmed; `%` and `_` match themselves). Blank means no filter; a NUL character is a 400',
    }),
  ),
  status: Type.Optional(
    status('Only flipbooks with this status (case-insensitive). Empty means no filter'),
  ),
  sort: Defaulted(
    StringEnum(LIST_SORTS, {
      default: 'created_at',
      description: 'Sort field (case-insensitive); `title` sorts case-insensitively',
    }),
  ),
  dir: Defaulted(
    StringEnum(LIST_DIRS, {
      default: 'desc',
      description: 'Sort direction (case-insensitive)',
    }),
  ),
});

export const FlipbookList = Named('FlipbookList', {
  flipbooks: Type.Array(FlipbookListItem, { maxItems: 100 }),
  page: Type.Integer({ minimum: 1, description: 'The page returned' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, description: 'Items per page' }),
  total_pages: Type.Integer({
    minimum: 0,
    description: 'Number of pages for this filter; 0 when nothing matches',
  }),
});
export type FlipbookList = Static<typeof FlipbookList>;

export const Created = Named('CreateFlipbookResponse', {
  flipbook_id: Uuid('The new flipbook'),
  version_id: Uuid('Its version 1'),
  title: title('The title given, or the file name'),
  status: Type.Literal('pending', { description: 'Status of version 1' }),
  ...uploadAccepted(),
});
export type Created = Static<typeof Created>;

/** POST /flipbooks/by-slug/{slug}/versions (beyond the spec): what publishing to a slug made. */
export const PublishedToSlug = Named('PublishToSlugResponse', {
  flipbook_id: Uuid('The flipbook with this slug: the one there was, or the one made now'),
  version_id: Uuid('The new version'),
  slug: Type.String({ description: 'The slug, as the flipbook has it' }),
  created: Type.Boolean({
    description:
      'true when this request made the flipbook (its version 1); false when it added a version',
  }),
  title: title('The flipbook’s title'),
  status: Type.Literal('pending', { description: 'Status of the new version' }),
  activate_on_done: Type.Literal(true, {
    description: 'The new version becomes the active one once processed',
  }),
  ...uploadAccepted(),
});
export type PublishedToSlug = Static<typeof PublishedToSlug>;

/** The text fields of a flipbook upload, besides its `file` part. */
export const CreateFlipbookFields = Closed({
  title: Type.Optional(
    title(
      'Title, trimmed, at most 255 characters, no NUL character; absent or blank means the file name',
    ),
  ),
  description: Type.Optional(description('Description, trimmed; empty when absent')),
  slug: Type.Optional(
    slug(
      'Slug, unique in the workspace (a 422 when taken); absent means one made from the title (the first free of title, title-2, …)',
    ),
  ),
  direction: Type.Optional(
    direction(
      'Beyond the spec: how the reader turns pages: `ltr`, `rtl`, or `auto` (the PDF’s own). In any letter case, spaces around ignored; absent means `auto`; anything else is a 400',
    ),
  ),
  visibility: Type.Optional(
    visibility(
      'Beyond the spec: who may read it: `public` (the default), `workspace` or `links` (docs/access.md)',
    ),
  ),
});

/** PATCH /flipbooks/:id: any of these, each checked on its own; what is absent stays as it is. */
export const FlipbookEdits = Named(
  'FlipbookEdits',
  {
    title: Type.Optional(title('The new title, trimmed; not blank')),
    slug: Type.Optional(slug('The new slug, unique in the workspace (a 422 when taken)')),
    description: Type.Optional(description('The new description, trimmed; `""` clears it')),
    status: Type.Optional(
      status(
        '`archived` takes the flipbook off the web (its reader says so); `published` brings it back',
      ),
    ),
    allow_download: Type.Optional(
      Type.Boolean({ description: 'Whether the reader offers the original PDF for download' }),
    ),
    direction: Type.Optional(
      direction('How the reader turns pages: `ltr`, `rtl`, or `auto` (the PDF’s own)'),
    ),
    visibility: Type.Optional(
      visibility(
        'Who may read it: `public`, `workspace` or `links` (docs/access.md); takes effect at once, also for pages already open',
      ),
    ),
    embed_origins: Type.Optional(
      embedOrigins(
        'The sites that may frame its reader, each `https://host` (or `http://`, a port, `*.host`); `[]` for the default',
      ),
    ),
  },
  { description: 'Any of the editable fields; a field absent stays as it is' },
);
export type FlipbookEdits = Static<typeof FlipbookEdits>;

/** The path of every endpoint under /flipbooks/{id}. */
export const FlipbookIdParams = Type.Object({ id: Uuid('Flipbook id (any letter case)') });

/** POST /flipbooks/by-slug/{slug}/versions. */
export const SlugParams = Type.Object({
  slug: slug('A slug of the workspace: lowercase letters, digits and hyphens'),
});
