import net from 'node:net';
import { afterAll } from 'vitest';

// A safety net for tests that name hostile addresses (169.254.169.254, 10.0.0.1...): the code under
// test must refuse them before connecting, and if it ever stops doing so (a regression, or the test run
// against older code) this makes the connection fail in the test instead of sending a packet to a
// network the test has no business reaching. Every TCP and TLS socket of the test file goes through
// net.Socket.prototype.connect; an IP address outside loopback is refused there, except the database's.

function allowedHosts(): Set<string> {
  const hosts = new Set<string>();
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl && URL.canParse(databaseUrl)) hosts.add(new URL(databaseUrl).hostname.replace(/^\[|\]$/g, ''));
  return hosts;
}

function isLoopbackAddress(host: string): boolean {
  return host.startsWith('127.') || host === '::1' || /^::ffff:127\./i.test(host);
}

/** Refuses, for the rest of this test file, every connection to an IP address that is not loopback. */
export function connectToLoopbackOnly(): void {
  const original = net.Socket.prototype.connect;
  const allowed = allowedHosts();
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as { host?: string; path?: string } | number | string | undefined;
    const host = typeof options === 'object' && options !== null ? options.host : typeof args[1] === 'string' ? args[1] : undefined;
    const isSocketFile = typeof options === 'string' || (typeof options === 'object' && options !== null && options.path !== undefined);
    if (!isSocketFile && host && net.isIP(host) !== 0 && !isLoopbackAddress(host) && !allowed.has(host)) {
      throw new Error(`test guard: this test connects to loopback only, not ${host}`);
    }
    return (original as (...parameters: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  afterAll(() => {
    net.Socket.prototype.connect = original;
  });
}
