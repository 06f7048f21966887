// A request's client gone before it was answered: no one to answer, and nothing wrong with the
// service (./server.ts logs it as such, not as a failure).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A body's client closed its connection before the body was read. */
export class ClientClosed extends Error {
  override name = 'ClientClosed';
  constructor() {
    super('the client closed the connection');
  }
}

/** Whether a failure is the client's going away mid-request: no one is left to answer. */
export const clientGone = (req: IncomingMessage, res: ServerResponse, cause: unknown) => {
  const code = (cause as { code?: string } | null)?.code;
  const message = String((cause as Error | null)?.message ?? '');
  // The client's connection, not the request stream: a request whose (empty) body was read is
  // destroyed by Node while its client still waits, and an ECONNRESET then comes from
  // elsewhere (the database's connection): that client is answered.
  return (
    (req.socket.destroyed || res.destroyed || res.writableEnded) &&
    (cause instanceof ClientClosed ||
      code === 'ECONNRESET' ||
      code === 'ERR_STREAM_PREMATURE_CLOSE' ||
      code === 'EPIPE' ||
      message === 'aborted')
  );
};
