import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { generate } from 'selfsigned';

// A real SMTP server on loopback for Vitest and Playwright (smtp-server): STARTTLS with a self-signed
// certificate made at start, AUTH PLAIN/LOGIN against one user (refused without TLS), every message
// parsed with mailparser. A test can make it answer the next messages with an SMTP error (550, 421),
// or stop and start it again on the same port (a server that is down).

export interface ReceivedMail {
  parsed: ParsedMail;
  raw: string;
  /** The envelope's recipients and whether the session had been upgraded to TLS and authenticated as whom. */
  to: string[];
  tls: boolean;
  user: string | undefined;
}

export interface SmtpPeer {
  readonly port: number;
  /** smtp://user:pass@127.0.0.1:port */
  readonly url: string;
  readonly messages: ReceivedMail[];
  /** Answer the data of the next `count` messages with this SMTP reply (e.g. 421 or 550). */
  failNext: (count: number, code: number, text: string) => void;
  /** Refuse every message to this recipient with this reply. */
  refuseRecipient: (address: string, code: number, text: string) => void;
  /** Accept this recipient again. */
  acceptRecipient: (address: string) => void;
  /** Messages received for an address. */
  to: (address: string) => ReceivedMail[];
  stop: () => Promise<void>;
  /** Listen again on the same port after stop(). */
  start: () => Promise<void>;
}

export const SMTP_PEER_USER = { user: 'storepulse', pass: 'peer-password' } as const;

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

export async function startSmtpPeer(options: { port?: number; user?: { user: string; pass: string } } = {}): Promise<SmtpPeer> {
  const credentials = options.user ?? SMTP_PEER_USER;
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256', notAfterDate: new Date(Date.now() + 2 * 86_400_000) });
  const messages: ReceivedMail[] = [];
  const failures: { code: number; text: string }[] = [];
  const refused = new Map<string, { code: number; text: string }>();
  let port = options.port ?? 0;

  const create = () =>
    new SMTPServer({
      key: pems.private,
      cert: pems.cert,
      authMethods: ['PLAIN', 'LOGIN'],
      // Default of smtp-server: no AUTH on an unencrypted connection, so a login proves STARTTLS happened.
      allowInsecureAuth: false,
      size: 10 * 1024 * 1024,
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === credentials.user && auth.password === credentials.pass) return callback(null, { user: auth.username });
        return callback(smtpError(535, 'Authentication credentials invalid'));
      },
      onRcptTo(address, _session, callback) {
        const refusal = refused.get(address.address.toLowerCase());
        if (refusal) return callback(smtpError(refusal.code, refusal.text));
        return callback();
      },
      onData(stream, session: SMTPServerSession, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const failure = failures.shift();
          if (failure) return callback(smtpError(failure.code, failure.text));
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw).then(
            (parsed) => {
              messages.push({ parsed, raw, to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()), tls: session.secure, user: session.user as string | undefined });
              callback();
            },
            (error: Error) => callback(error),
          );
        });
      },
    });

  let server = create();
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        port = (server.server.address() as AddressInfo).port;
        resolve();
      });
    });
  await listen();

  return {
    get port() {
      return port;
    },
    get url() {
      return `smtp://${credentials.user}:${credentials.pass}@127.0.0.1:${port}`;
    },
    messages,
    failNext: (count, code, text) => {
      for (let i = 0; i < count; i += 1) failures.push({ code, text });
    },
    refuseRecipient: (address, code, text) => void refused.set(address.toLowerCase(), { code, text }),
    acceptRecipient: (address) => void refused.delete(address.toLowerCase()),
    to: (address) => messages.filter((message) => message.to.includes(address.toLowerCase())),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    start: async () => {
      server = create();
      await listen();
    },
  };
}
