// An endpoint's inputs, read against its schemas (src/http/endpoint.ts): path parameters, the
// query string and a JSON body. Each checker is compiled once (Ajv); every refusal is a 400 in
// the words docs/api.md gives (the spec fixes some: `Invalid flipbook ID`, `Invalid IDs`).
import type { IncomingMessage } from 'node:http';
import type { TObject, TSchema } from '@sinclair/typebox';
import { validator } from '../contract/validate.ts';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { storableText } from '../domain/storableText.ts';
import { readBody } from './bodyLimit.ts';
import type { JsonBody, ParamsSpec } from './endpoint.ts';
import { PayloadTooLarge } from './upload.ts';
import { NOT_UTF8, utf8Text } from './utf8.ts';

type Json = Record<string, unknown>;
type Property = TSchema & {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
};

/**
 * Path parameters: decoded, checked, and UUIDs in lower case (ids are taken in any letter case).
 */
export const paramsReader = (spec: ParamsSpec<TObject>) => {
  const check = validator(spec.schema);
  const properties = spec.schema.properties as Record<string, Property>;
  return (raw: Record<string, string>) => {
    const params: Record<string, string> = {};
    let decoded = true;
    for (const name of Object.keys(properties)) {
      try {
        params[name] = decodeURIComponent(raw[name] ?? '');
      } catch {
        params[name] = raw[name] ?? '';
        decoded = false;
      }
    }
    const refuse = (): never => {
      if (typeof spec.invalid === 'function') spec.invalid(params);
      throw new InvalidInput(spec.invalid as string);
    };
    if (!decoded) refuse();
    if (check(params).length > 0) refuse();
    for (const [name, schema] of Object.entries(properties))
      if ((schema as { format?: string }).format === 'uuid')
        params[name] = (params[name] as string).toLowerCase();
    return params;
  };
};

/**
 * The query string as the schema's object: each parameter at most once, integers from their
 * digits, choices in any letter case (empty means the default), defaults filled in. Unknown
 * parameters are ignored, as HTTP APIs customarily do.
 */
export const queryReader = (schema: TObject, invalid: Record<string, string> = {}) => {
  const check = validator(schema);
  const properties = Object.entries(schema.properties as Record<string, Property>);
  const range = (p: Property) => `must be an integer from ${p.minimum} to ${p.maximum}`;
  return (search: URLSearchParams) => {
    const query: Json = {};
    for (const [name, property] of properties) {
      const values = search.getAll(name);
      if (values.length > 1) throw new InvalidInput(`Invalid ${name}: give it once`);
      const raw = values[0];
      if (raw === undefined || (raw === '' && property.enum)) {
        if (property.default !== undefined) query[name] = property.default;
        continue;
      }
      if (property.type === 'integer') query[name] = /^\d{1,16}$/.test(raw) ? Number(raw) : raw;
      else if (property.enum) query[name] = raw.toLowerCase();
      else query[name] = storableText(name, raw);
    }
    const failure = check(query)[0];
    if (failure) {
      const name = failure.instancePath.slice(1);
      const property = schema.properties[name] as Property;
      const words =
        invalid[name] ??
        (property.type === 'integer'
          ? range(property)
          : property.enum
            ? `must be one of ${property.enum.join(', ')}`
            : failure.keyword === 'maxLength'
              ? `at most ${property.maxLength} characters`
              : 'not allowed');
      throw new InvalidInput(invalid[name] ?? `Invalid ${name}: ${words}`);
    }
    return query;
  };
};

/** A JSON body, at most `limit` bytes, checked by its schema and told in the endpoint's words. */
export const jsonReader = <B>(body: JsonBody<B>) => {
  const check = validator(body.json);
  return async (req: IncomingMessage): Promise<B> => {
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      throw new InvalidInput('The body must be JSON (Content-Type: application/json)');
    }
    let value: unknown;
    try {
      value = JSON.parse(await readText(req, body.limit, body.what));
    } catch (error) {
      if (error instanceof AppError) throw error; // too large, too slow
      throw new InvalidInput('Malformed JSON body');
    }
    return body.read(value, check(value));
  };
};

/**
 * The body as text, at most `limit` bytes; `what` names it in the 413 ("an edit"). A body that
 * is not UTF-8 is a 400 that says so.
 */
export const readText = async (req: IncomingMessage, limit: number, what: string) => {
  const tooLarge = () =>
    new PayloadTooLarge(`Request body too large: ${what} is at most ${limit / 1024} KB`);
  const text = utf8Text(await readBody(req, { limit, tooLarge }));
  if (text === null) throw new InvalidInput(`Malformed JSON body: ${NOT_UTF8}`);
  return text;
};
