// Test hook for crash-safety tests: with STOREPULSE_CRASH_AT=<point>[:<n>] in its environment, the
// process kills itself with SIGKILL the n-th time (default: the first) it passes crashPoint(<point>),
// exactly as `kill -9` would: no finally block, no shutdown hook, open transactions rolled back by
// PostgreSQL. Without the variable (production) crashPoint does nothing but compare a string.
//
// Points: 'webhook.stored' (a delivery's row written, its job not yet queued), 'sync.ingested'
// (a sync batch's rows committed, its cursor not yet stored).

const spec = process.env.STOREPULSE_CRASH_AT?.match(/^([\w.-]+)(?::(\d+))?$/) ?? null;
let remaining = spec ? Number(spec[2] ?? 1) : 0;

export function crashPoint(point: string): void {
  if (!spec || spec[1] !== point) return;
  remaining -= 1;
  if (remaining === 0) process.kill(process.pid, 'SIGKILL');
}
