// A real SMTP server for the mail tests (the `smtp-server` package, nodemailer's own project's
// server): records each message it accepts (envelope, From, To, Subject, Message-ID, the text and
// HTML parts, decoded), refuses at RCPT TO or DATA when the test says so, may ask for a user and
// password, and speaks TLS from the first byte (smtps) with a certificate made for the test. It
// can stop and start again on the same port: a mail server that is down, then back.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

export type ReceivedMail = {
  envelope: { from: string; to: string[] };
  from: string;
  to: string;
  subject: string;
  messageId: string;
  text: string;
  html: string | null;
  raw: string;
};

/** Where a refusal happens: at the recipient (RCPT TO) or after the message (DATA). */
export type Stage = 'rcpt' | 'data';
/** The reply for the n-th time (1-based) a stage is reached: a code (and its enhanced status), or accept. */
export type Refusal = { code: number; text: string } | null;

export type SmtpOptions = {
  /** smtps: TLS from the first byte, with a certificate of the test's (see `testCertificate`) */
  tls?: { key: string; cert: string };
  /** the server asks for this user and password */
  auth?: { user: string; password: string };
  /** a port to listen on again (the server that was down); default any free one */
  port?: number;
};

export type SmtpServerUnderTest = Awaited<ReturnType<typeof startSmtpServer>>;

export const startSmtpServer = async (options: SmtpOptions = {}) => {
  const received: ReceivedMail[] = [];
  const reached = { rcpt: 0, data: 0 };
  let refuse: (stage: Stage, n: number) => Refusal = () => null;
  const refusal = (stage: Stage) => {
    reached[stage] += 1;
    const answer = refuse(stage, reached[stage]);
    if (!answer) return null;
    return Object.assign(new Error(answer.text), { responseCode: answer.code });
  };
  const server = new SMTPServer({
    logger: false,
    secure: options.tls !== undefined,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    // No STARTTLS on the plain server: smtp-server would offer it with its own certificate, which
    // the client rightly does not trust; smtps is the TLS case.
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: options.auth === undefined,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === options.auth?.user && auth.password === options.auth?.password) {
        callback(null, { user: auth.username });
      } else {
        callback(
          Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }),
        );
      }
    },
    onRcptTo(_address, _session, callback) {
      callback(refusal('rcpt'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const refused = refusal('data');
        if (refused) {
          callback(refused);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          ...parseMessage(raw),
          raw,
        });
        callback(null);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    /** how many times each stage was reached (refused or not) */
    reached,
    /** sets the replies from now on */
    refuseWith: (decide: (stage: Stage, n: number) => Refusal) => {
      refuse = decide;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** A free port with nothing listening on it (a mail server that is down). */
export const closedPort = async () => {
  const server = await startSmtpServer();
  await server.close();
  return server.port;
};

/** A self-signed certificate for localhost and 127.0.0.1 (openssl), for a smtps server. */
export const testCertificate = () => {
  const dir = mkdtempSync(join(tmpdir(), 'smtp-cert-'));
  try {
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { encoding: 'utf8' },
    );
    if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

// What a test reads of a message: headers unfolded and their encoded words (RFC 2047) decoded;
// the text/plain and text/html parts (a multipart/alternative when both), each decoded from its
// transfer encoding. Enough for what nodemailer writes, not a general MIME parser.

const splitHead = (raw: string) => {
  const at = raw.search(/\r?\n\r?\n/);
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
};

const decodeWords = (value: string) =>
  value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(
      /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g,
      (_, _charset: string, encoding: string, text: string) =>
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64').toString('utf8')
          : Buffer.from(
              text
                .replace(/_/g, ' ')
                .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
                  String.fromCharCode(Number.parseInt(hex, 16)),
                ),
              'latin1',
            ).toString('utf8'),
    );

const decodeBody = (body: string, encoding: string | undefined) => {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return Buffer.from(
        body
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
            String.fromCharCode(Number.parseInt(hex, 16)),
          ),
        'latin1',
      ).toString('utf8');
    default:
      return body;
  }
};

const partsOf = (headers: Map<string, string>, body: string): Map<string, string> => {
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    const found = new Map<string, string>();
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = splitHead(chunk.replace(/^\r?\n/, ''));
      for (const [kind, text] of partsOf(part.headers, part.body)) found.set(kind, text);
    }
    return found;
  }
  const kind = type.split(';')[0]?.trim().toLowerCase() ?? 'text/plain';
  const text = decodeBody(body, headers.get('content-transfer-encoding')).replace(/\r?\n$/, '');
  return new Map([[kind, text.replace(/\r\n/g, '\n')]]);
};

const parseMessage = (raw: string) => {
  const { headers, body } = splitHead(raw);
  const parts = partsOf(headers, body);
  return {
    from: decodeWords(headers.get('from') ?? ''),
    to: decodeWords(headers.get('to') ?? ''),
    subject: decodeWords(headers.get('subject') ?? ''),
    messageId: headers.get('message-id') ?? '',
    text: parts.get('text/plain') ?? '',
    html: parts.get('text/html') ?? null,
  };
};
