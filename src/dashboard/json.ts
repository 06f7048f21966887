// The JSON the dashboard's script reads and is sent (passkey ceremonies, an upload's progress):
// a bounded body, the same no-store headers as a page, and every failure answered as
// {"error": message} in words, never a crash. The checks (origin, CSRF) are the caller's, as for
// forms.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { readSmallBody } from '../http/formBody.ts';
import { loggedUrl } from '../http/loggedUrl.ts';
import { sendJson } from '../http/respond.ts';
import type { Request } from '../http/server.ts';
import type { Logger } from '../log.ts';

/** An application/json body holding an object, at most 64 KB, within 30 s. */
export const readJson = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  const text = await readSmallBody(req, 'application/json', {
    wrongType: 'Send the body as application/json',
    noun: 'request',
  });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidInput('The body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidInput('The body must be a JSON object');
  }
  return body as Record<string, unknown>;
};

/** A JSON answer of the dashboard: never kept (the same no-store as a page). */
export const sendJsonBody = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
) => sendJson(res, status, body, { cache: 'no-store', headers });

export type JsonHandler = (req: Request, res: ServerResponse) => Promise<void>;

/**
 * A JSON endpoint: an AppError is its status and words; anything else is logged and a 500 in
 * words. What a refusal does not tell the person (its `detail`: a passkey verifier's reason) goes
 * to the log.
 */
export const jsonRoute =
  (log: Logger, handler: JsonHandler): JsonHandler =>
  async (req, res) => {
    try {
      await handler(req, res);
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      if (error instanceof AppError) {
        const detail = (error as AppError & { detail?: unknown }).detail;
        if (typeof detail === 'string' && detail) {
          log.info(
            { reason: detail, status: error.status, refused: error.name },
            'request refused',
          );
        }
        return sendJsonBody(res, error.status, { error: error.message }, error.headers);
      }
      log.error({ err: error, url: loggedUrl(req.url) }, 'dashboard request failed');
      sendJsonBody(res, 500, { error: 'Something went wrong on our side: try again in a moment' });
    }
  };
