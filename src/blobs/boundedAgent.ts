// The connections to a bucket, each wait on them bounded apart (./bucketLimits.ts). The AWS SDK's
// own connection timeout starts when a request is made, so a request waiting for one of the
// agent's sockets behind a slow bucket's requests failed as "did not establish a connection"
// (measured: 15 of 200 reads at 5.2 s with the bucket answering in 2 s). Here:
// - waiting for a socket (the pool full): `socketWaitMs`, then BucketBusy (not retried: asking
//   again only queues again);
// - connecting a new socket: `connectMs`, from the moment it is opened;
// - silence once a request has its socket: `silenceMs` without a byte either way until the
//   answer's headers (a body that comes afterwards is watched by its reader, who knows when it
//   is waiting for the bucket rather than for its own client: ./s3Objects.ts).
// Timeouts are BucketTimeout (ETIMEDOUT): the SDK reports them as TimeoutError, and they are
// retried within the operation's budget (./boundedSend.ts).
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { BucketLimits } from './bucketLimits.ts';

/** The bucket did not connect or went silent in time. */
export class BucketTimeout extends Error {
  override name = 'TimeoutError';
  readonly code = 'ETIMEDOUT';
}

/** Every connection to the bucket was busy for the whole wait. */
export class BucketBusy extends Error {
  override name = 'BucketBusy';
  readonly code = 'EBUCKETBUSY';
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** What node:http's ClientRequest has and its types do not say: how an agent hands a socket. */
type RequestInside = { onSocket: (socket: Socket | null, error?: Error) => void };

/** What node:http's Agent has and its types do not say. */
type AgentInside = {
  addRequest: (req: http.ClientRequest, options: http.RequestOptions) => void;
  requests: Record<string, http.ClientRequest[] | undefined>;
  createConnection: (
    options: http.RequestOptions,
    callback: (error: Error | null, socket?: Socket) => void,
  ) => Socket;
};

export const boundedAgent = (limits: BucketLimits, secure: boolean): http.Agent => {
  const options = { keepAlive: true, maxSockets: limits.maxSockets };
  const agent = secure ? new https.Agent(options) : new http.Agent(options);
  const inside = agent as unknown as AgentInside;

  const create = inside.createConnection.bind(agent);
  inside.createConnection = (connectOptions, callback) => {
    const socket = create(connectOptions, callback);
    const timer = setTimeout(
      () =>
        socket.destroy(
          new BucketTimeout(
            `could not connect to the bucket within ${seconds(limits.connectMs)} s`,
          ),
        ),
      limits.connectMs,
    );
    socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  };

  const add = inside.addRequest.bind(agent);
  inside.addRequest = (req, requestOptions) => {
    const name = agent.getName(requestOptions);
    const waiting = setTimeout(() => {
      // Out of the agent's queue, as node:http leaves it (an empty queue is no queue: the agent
      // takes the first request of any queue it finds), then failed as node:http fails a request
      // that gets no socket: destroyed alone, it would wait for one to say so.
      const queue = inside.requests[name];
      const at = queue?.indexOf(req) ?? -1;
      if (queue && at >= 0) queue.splice(at, 1);
      if (queue?.length === 0) delete inside.requests[name];
      const busy = new BucketBusy(
        `all ${limits.maxSockets} connections to the bucket stayed busy for ${seconds(limits.socketWaitMs)} s`,
      );
      req.destroy(busy);
      if (at >= 0) (req as unknown as RequestInside).onSocket(null, busy);
    }, limits.socketWaitMs);
    req.once('close', () => clearTimeout(waiting));
    req.once('socket', (socket: Socket) => {
      clearTimeout(waiting);
      const silent = () =>
        req.destroy(new BucketTimeout(`the bucket was silent for ${seconds(limits.silenceMs)} s`));
      const watch = () => {
        socket.setTimeout(limits.silenceMs);
        socket.on('timeout', silent);
      };
      const stop = () => {
        socket.removeListener('timeout', silent);
        socket.removeListener('connect', watch);
        socket.setTimeout(0);
      };
      if (socket.connecting) socket.once('connect', watch);
      else watch();
      req.once('response', stop);
      req.once('close', stop);
    });
    add(req, requestOptions);
  };
  return agent;
};
