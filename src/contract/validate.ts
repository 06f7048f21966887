// Checks a value against a contract schema with Ajv (JSON Schema 2020-12, the dialect OpenAPI 3.1
// embeds). Answers the failures, never a message: the spec fixes its error texts, so each caller
// maps failures to its own words (src/http/endpointInput.ts).
import type { TSchema } from '@sinclair/typebox';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { UUID } from '../domain/uuid.ts';

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv, ['date-time', 'uri']);
// Not ajv-formats' uuid: it also takes a `urn:uuid:` prefix, which no id of ours has.
ajv.addFormat('uuid', UUID);

export type Failure = ErrorObject;

/** A checker compiled once: the value's failures, none when it is valid. */
export const validator = (schema: TSchema) => {
  const validate = ajv.compile(schema);
  return (value: unknown): Failure[] => (validate(value) ? [] : [...(validate.errors ?? [])]);
};
