// A flipbook's versions and pages: the spec's Version and Page, the status answer, and what an
// upload or an activation answers.
import { type Static, Type } from '@sinclair/typebox';
import { ACTIVATE_SPELLINGS } from '../domain/activateFlag.ts';
import { Closed, Count, DateTime, Named, StringEnum, Uuid } from './common.ts';

export const VERSION_STATUSES = ['pending', 'processing', 'done', 'error'] as const;

/** Where a version's processing is (the status answer's `step`, beyond the spec). */
export const PROCESSING_STEPS = ['waiting', 'converting', 'rendering', 'finished'] as const;
export type ProcessingStep = (typeof PROCESSING_STEPS)[number];

export const VersionStatusName = StringEnum(VERSION_STATUSES, {
  description:
    'Processing status: `pending` after upload, then `processing`, then `done` or `error`',
});

export const Version = Named('Version', {
  id: Uuid('Version id'),
  version: Count('Version number: 1, 2, … within the flipbook, never reused', 1),
  status: VersionStatusName,
  is_active: Type.Boolean({ description: 'Whether this is the active version' }),
  activate_on_done: Type.Boolean({
    description: 'Whether the version is activated automatically when processing finishes',
  }),
  file_name: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Original file name, without any directory part',
  }),
  file_type: Type.String({
    examples: ['pdf', 'docx', 'pptx', 'jpeg'],
    description:
      'Kind of the original file, told by its content: `pdf`; `docx`, `doc`, `odt`, `rtf`, `pptx`, `ppt`, `odp`, `xlsx`, `xls`, `ods` (converted to PDF by processing); `jpeg`, `png`, `webp`, `tiff` (one page an image), `zip` (a folder of images: one page an image)',
  }),
  mime_type: Type.String({
    examples: ['application/pdf'],
    description: 'Media type of the original file (of its kind, not as the client declared it)',
  }),
  file_size: Count('Size of the original file in bytes'),
  width: Count('Page width found by processing; 0 until processed'),
  height: Count('Page height found by processing; 0 until processed'),
  created_at: DateTime('When the version was uploaded'),
});
export type Version = Static<typeof Version>;

const imageUrl = (size: string) =>
  Type.String({
    format: 'uri',
    description: `Absolute URL of the page image, ${size} rendition (JPEG)`,
  });

export const Page = Named('Page', {
  id: Uuid('Page id'),
  position: Count('Page position, from 1', 1),
  width: Count('Page width'),
  height: Count('Page height'),
  img_max: imageUrl('largest'),
  img_mid: imageUrl('medium'),
  img_min: imageUrl('smallest'),
});
export type Page = Static<typeof Page>;

export const VersionStatus = Named('VersionStatus', {
  version_id: Uuid('Version id'),
  status: VersionStatusName,
  is_active: Type.Boolean({ description: 'Whether this is the active version' }),
  version: Count('Version number', 1),
  pages: Count('Number of pages; 0 while pending or before processing found them'),
  pages_done: Count(
    'Pages ready so far (beyond the spec): 0 while pending, all of them once done; with `pages`, how far processing has come',
  ),
  file_name: Type.String({ description: 'Original file name' }),
  file_size: Count('Size of the original file in bytes'),
  step: StringEnum(PROCESSING_STEPS, {
    description:
      'Which part of processing (beyond the spec): `waiting` for a worker, `converting` an upload that is not a PDF into one (status `processing`, pages 0), `rendering` its pages, `finished` once done or failed',
  }),
  error_reason: Type.Optional(
    Type.String({
      description:
        'Only when status is error (an addition to the spec): why processing failed, for a person',
    }),
  ),
});
export type VersionStatus = Static<typeof VersionStatus>;

export const estimatedSeconds = Type.Number({
  minimum: 0,
  description:
    'Expected processing time in seconds (fractional, two decimals), from the page count and the speed measured on this server',
});
export const createdAtUnix = Type.Integer({
  description: 'When the upload was accepted, in Unix time (whole seconds)',
});
export const uploadedSize = () => Count('Size of the uploaded file in bytes', 1);

/** What every upload's answer ends with: the file's size, the time to expect, when it was taken. */
export const uploadAccepted = () => ({
  file_size: uploadedSize(),
  estimated_seconds: estimatedSeconds,
  created_at_unix: createdAtUnix,
});

export const CreatedVersion = Named('CreateVersionResponse', {
  version_id: Uuid('The new version'),
  version_status: Type.Literal('pending', { description: 'Status of the new version' }),
  activate_on_done: Type.Boolean({
    description: 'Whether it is activated automatically once processed',
  }),
  ...uploadAccepted(),
});
export type CreatedVersion = Static<typeof CreatedVersion>;

export const Activated = Named('ActivateResponse', {
  success: Type.Literal(true),
  active_version_id: Uuid('The version now active'),
});
export type Activated = Static<typeof Activated>;

/** The text fields of a version upload, besides its `file` part. */
export const CreateVersionFields = Closed({
  activate: Type.Optional(
    StringEnum(ACTIVATE_SPELLINGS, {
      default: 'true',
      examples: ['true', 'false'],
      description:
        'Whether to activate the version automatically once processed. Accepted spellings, in any letter case and with surrounding spaces ignored: `true`/`1`/`yes`/`on` and `false`/`0`/`no`/`off`. Absent means true; anything else is a 400',
    }),
  ),
});

/** The path of every endpoint under /flipbooks/{id}/versions/{vid}. */
export const VersionIdsParams = Type.Object({
  id: Uuid('Flipbook id (any letter case)'),
  vid: Uuid('Version id (any letter case)'),
});
