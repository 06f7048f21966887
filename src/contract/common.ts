// Building blocks of the API contract: TypeBox schemas are plain JSON Schema 2020-12 objects, so
// the same object types the code (`Static<typeof X>`), validates requests (Ajv) and is embedded
// in the OpenAPI 3.1 document as is (src/http/openapi.ts).
import {
  type SchemaOptions,
  type Static,
  type TProperties,
  type TSchema,
  Type,
} from '@sinclair/typebox';

/**
 * A named schema: its `title` is its name in the OpenAPI document's components, where the
 * generator turns every use of it inside another schema into a `$ref`.
 */
export const Named = <T extends TProperties>(
  title: string,
  properties: T,
  options: SchemaOptions = {},
) => Type.Object(properties, { title, additionalProperties: false, ...options });

/** A closed object without a name of its own (a request body, a query). */
export const Closed = <T extends TProperties>(properties: T, options: SchemaOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** One of a few strings, written as JSON Schema's `enum` (TypeBox's union of literals is an anyOf). */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * An optional query parameter with a default: a request may leave it out, and once read (the
 * reader fills the default in, src/http/endpointInput.ts) it is always there, so code sees it
 * required.
 */
export const Defaulted = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T>>(Type.Optional(schema));

/**
 * The paging of a list's query: `page` and `per_page`, with the bounds src/http/listQuery.ts
 * enforces; each list has its own default page size.
 */
export const Paging = (perPage: number, perPageDescription: string) => ({
  page: Defaulted(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 1,
      description: 'Page number, from 1; a page past the end is empty',
    }),
  ),
  per_page: Defaulted(
    Type.Integer({ minimum: 1, maximum: 100, default: perPage, description: perPageDescription }),
  ),
});

export const Uuid = (description: string) => Type.String({ format: 'uuid', description });

export const DateTime = (description: string) =>
  Type.String({
    format: 'date-time',
    description: `${description}; RFC 3339 in UTC with seconds precision, e.g. 2025-01-31T09:30:00Z`,
  });

export const Count = (description: string, minimum = 0) => Type.Integer({ minimum, description });

/** Every error answer. */
export const ErrorBody = Named(
  'Error',
  { error: Type.String({ description: 'What went wrong' }) },
  { description: 'Every error answer' },
);

/** `{"success": true}`: a deletion done. */
export const DeleteResponse = Named('DeleteResponse', { success: Type.Literal(true) });
export type DeleteResponse = Static<typeof DeleteResponse>;
