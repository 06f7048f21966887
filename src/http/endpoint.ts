// One API endpoint as one value: its method and path, who may call it, what it reads (path
// parameters, query, body: schemas from src/contract/), what it answers, and its handler. The
// route table (src/http/api.ts) is a list of these; from it come the mounting, the body policy
// applied before routing, the validation of every input and the OpenAPI document, so an endpoint
// is declared once. The handler's result is typed by its success schema: a field the contract
// does not have, or one it lacks, fails tsc.
import type { ServerResponse } from 'node:http';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Caller } from '../app/caller.ts';
import type { Failure } from '../contract/validate.ts';
import type { Request } from './server.ts';

export type Method = 'get' | 'post' | 'patch' | 'delete';
export type Tag = 'flipbooks' | 'versions' | 'previews' | 'audit' | 'webhooks' | 'stats' | 'meta';

/** An error answer and why it is given (the body is always the Error schema). */
export type Answer =
  | { description: string; error: true; retryAfter?: true }
  | { ref: SharedAnswer };

/** Answers described once, in the document's components. */
export type SharedAnswer =
  | 'Unauthorized'
  | 'BodyTooLarge'
  | 'UploadTooLarge'
  | 'TooManyRequests'
  | 'InsufficientStorage'
  | 'InternalError'
  | 'Unavailable';

/**
 * Path parameters: their schema, and what a value it refuses gets: the text of a 400, or a
 * function that throws the endpoint's own error (a 404, a field's own words).
 */
export type ParamsSpec<P extends TObject> = {
  schema: P;
  invalid: string | ((raw: Record<string, string>) => never);
};

/**
 * A JSON body: its schema, its size limit (and what the 413 calls it), and how the schema's
 * failures are said (the first refusal, in the endpoint's words); the value it returns is the
 * body the handler gets.
 */
export type JsonBody<B> = {
  json: TObject;
  limit: number;
  what: string;
  read: (value: unknown, failures: Failure[]) => B;
};

/** A multipart upload: the text fields beside `file`. The handler reads the body itself. */
export type UploadBody = { upload: TObject };

export type Context<P, Q, B> = {
  req: Request;
  res: ServerResponse;
  /** the key's workspace; absent on a public endpoint */
  caller: Caller;
  params: P;
  query: Q;
  body: B;
};

type Declaration<Deps, S extends TSchema, P extends TObject, Q extends TObject, B> = {
  method: Method;
  /** relative to /api/v1, polka's `:name` for parameters */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** no API key needed */
  public?: true;
  params?: ParamsSpec<P>;
  /** query parameters; each given at most once; messages name the parameter */
  query?: Q;
  /** words for a query value its schema refuses by pattern or format */
  queryInvalid?: Partial<Record<keyof Static<Q>, string>>;
  body?: JsonBody<B> | UploadBody;
  /** 204: no body (its schema `Type.Void()`, its handler returns nothing) */
  ok: { status: 200 | 201 | 202 | 204; description: string; schema: S };
  errors?: Record<number, Answer>;
  handle: (context: Context<Static<P>, Static<Q>, B>, deps: Deps) => Promise<Static<S>>;
  /** the same answer as CSV, for a request that asks for it (`Accept: text/csv`) */
  csv?: (answer: Static<S>) => { fileName: string; text: string };
};

/** An endpoint with its types erased, as the table holds it. */
export type Endpoint<Deps> = Omit<
  Declaration<Deps, TSchema, TObject, TObject, unknown>,
  'handle' | 'queryInvalid' | 'csv'
> & {
  queryInvalid?: Record<string, string>;
  handle: (context: Context<never, never, never>, deps: Deps) => Promise<unknown>;
  csv?: (answer: never) => { fileName: string; text: string };
};

/**
 * Declares an endpoint. The type parameters are inferred from the schemas given, so the handler
 * sees its inputs typed and must return its success schema's type.
 */
export const endpoint =
  <Deps>() =>
  <S extends TSchema, P extends TObject = TObject, Q extends TObject = TObject, B = undefined>(
    declaration: Declaration<Deps, S, P, Q, B>,
  ): Endpoint<Deps> =>
    declaration as unknown as Endpoint<Deps>;

export const error = (description: string): Answer => ({ description, error: true });

/** The path as OpenAPI writes it: `{name}` for polka's `:name`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
