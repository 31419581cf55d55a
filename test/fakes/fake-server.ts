import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export { seededRandom } from '../../src/server/random.ts';

/** Text made safe inside the HTML pages fakes serve (consent and portal pages). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

// The loopback HTTP server under every platform fake (test/fakes/<platform>.ts). A fake registers
// routes that answer in its platform's documented wire format; tests (and the demo/benchmarks) queue
// faults that the fake renders the way its platform does (Shopify's THROTTLED, Meta's code 17, ...).

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: string;
  /** The body as JSON, or undefined when it is not JSON. */
  body: unknown;
  /** Path parameters from `:name` segments of the route. */
  params: Record<string, string>;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or bytes as they are (HTML pages, CSV, zip files, malformed bodies). */
  body?: unknown;
}

export type FakeHandler = (request: FakeRequest) => FakeResponse | Promise<FakeResponse>;

/** What a test can make the next matching request suffer. */
export type FaultKind = 'rate_limit' | 'server_error' | 'malformed' | 'expired_token' | 'revoked';

interface QueuedFault {
  kind: FaultKind;
  /** Only requests whose path contains this (all requests when absent). */
  pathIncludes?: string;
  remaining: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: IncomingMessage['headers'];
  rawBody: string;
  /** The fault the fake answered with, if any. */
  fault?: FaultKind;
}

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: FakeHandler;
}

export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Route[] = [];
  private readonly faults: QueuedFault[] = [];
  private server: Server | null = null;
  url = '';

  /** `path` may contain `:name` segments, e.g. '/admin/api/:version/graphql.json'. */
  route(method: string, path: string, handler: FakeHandler): this {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      })}$`,
    );
    this.routes.push({ method: method.toUpperCase(), pattern, names, handler });
    return this;
  }

  /** The next `times` requests (matching `pathIncludes`) get this fault instead of their answer. */
  injectFault(kind: FaultKind, options: { times?: number; pathIncludes?: string } = {}): void {
    this.faults.push({ kind, pathIncludes: options.pathIncludes, remaining: options.times ?? 1 });
  }

  /** Called by a fake's handler: the fault due for this request, consumed, or null. */
  takeFault(request: FakeRequest): FaultKind | null {
    const fault = this.faults.find((entry) => entry.remaining > 0 && (!entry.pathIncludes || request.path.includes(entry.pathIncludes)));
    if (!fault) return null;
    fault.remaining--;
    const recorded = this.requests.at(-1);
    if (recorded) recorded.fault = fault.kind;
    return fault.kind;
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        void this.answer(incoming, Buffer.concat(chunks).toString('utf8')).then(
          (response) => {
            const isText = typeof response.body === 'string';
            const isBinary = response.body instanceof Uint8Array;
            const payload = response.body === undefined ? '' : isText || isBinary ? (response.body as string | Uint8Array) : JSON.stringify(response.body);
            outgoing.writeHead(response.status ?? 200, {
              'content-type': isBinary ? 'application/octet-stream' : isText ? 'text/plain; charset=utf-8' : 'application/json',
              ...response.headers,
            });
            outgoing.end(payload);
          },
          (error: unknown) => {
            outgoing.writeHead(500, { 'content-type': 'application/json' });
            outgoing.end(JSON.stringify({ error: `fake server failure: ${(error as Error).message}` }));
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async answer(incoming: IncomingMessage, rawBody: string): Promise<FakeResponse> {
    const url = new URL(incoming.url ?? '/', 'http://fake.local');
    const method = (incoming.method ?? 'GET').toUpperCase();
    this.requests.push({ method, path: url.pathname, query: url.search, headers: incoming.headers, rawBody });
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const match = route.pattern.exec(url.pathname);
      if (!match) continue;
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const params = Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
      return route.handler({ method, path: url.pathname, query: url.searchParams, headers: incoming.headers, rawBody, body, params });
    }
    return { status: 404, body: { error: `no fake route for ${method} ${url.pathname}` } };
  }
}
