// Checks a value against a contract schema with Ajv (JSON Schema 2020-12, the dialect OpenAPI 3.1
// embeds). Answers the failures, never a message: the spec fixes its error texts, so each caller
// maps failures to its own words (src/http/editBody.ts).
import type { TSchema } from '@sinclair/typebox';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/);
ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\/\/\S+$/i);

export type Failure = ErrorObject;

/** A checker compiled once: the value's failures, none when it is valid. */
export const validator = (schema: TSchema) => {
  const validate = ajv.compile(schema);
  return (value: unknown): Failure[] => (validate(value) ? [] : [...(validate.errors ?? [])]);
};
