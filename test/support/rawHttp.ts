// HTTP written by hand on a socket, for what fetch will not send: no Host, an odd Expect, bytes
// node:http cannot parse, a body declared and never sent.
import { connect } from 'node:net';

/**
 * Sends `request` on a fresh connection and reads everything until the server closes it. By
 * default the client's side is closed once written (`halfClose`); `halfClose: false` keeps it
 * open, as a client still about to send its body, so only the server can end the exchange.
 */
export const rawExchange = (
  base: string,
  request: string | Uint8Array,
  { halfClose = true, timeoutMs = 20_000 } = {},
) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(new Error(`no end in ${timeoutMs} ms: ${Buffer.concat(chunks)}`)),
    );
    if (halfClose) socket.end(request);
    else socket.write(request);
  });

/** An answer's status, headers (names in lower case) and body. */
export const parseRaw = (text: string) => {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
};
