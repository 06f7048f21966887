// The small part of polka 0.5 and @polka/send-type this project uses (neither ships types, and
// @types/polka drags in Express's).
declare module 'polka' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => unknown;
  type Options = {
    server?: Server;
    onNoMatch?: (req: IncomingMessage, res: ServerResponse) => void;
    onError?: (err: unknown, req: IncomingMessage, res: ServerResponse) => void;
  };
  type Polka = {
    get(path: string, ...handlers: Handler[]): Polka;
    post(path: string, ...handlers: Handler[]): Polka;
    delete(path: string, ...handlers: Handler[]): Polka;
    patch(path: string, ...handlers: Handler[]): Polka;
    use(...handlers: Handler[]): Polka;
    handler: (req: IncomingMessage, res: ServerResponse) => void;
  };
  export default function polka(options?: Options): Polka;
}

declare module '@polka/send-type' {
  import type { ServerResponse } from 'node:http';
  export default function send(
    res: ServerResponse,
    code?: number,
    data?: unknown,
    headers?: Record<string, string | number>,
  ): void;
}
