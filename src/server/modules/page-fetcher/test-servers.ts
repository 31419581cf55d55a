import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback HTTP server for the fetcher's tests, counting the connections and requests it receives. */
export interface TestServer {
  server: Server;
  port: number;
  origin: string;
  requests: { url: string; userAgent: string | undefined }[];
  connections: number;
  close(): Promise<void>;
}

export async function startTestServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestServer> {
  const server = createServer((request, response) => {
    state.requests.push({ url: request.url ?? '', userAgent: request.headers['user-agent'] });
    handler(request, response);
  });
  const state: TestServer = {
    server,
    port: 0,
    origin: '',
    requests: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.origin = `http://127.0.0.1:${state.port}`;
  return state;
}
