// At most one request per domain per N seconds (N = 10 by default), for the crawling jobs (the price
// tracker's checks, the shopping optimizer's product page check). One pacer for the whole process
// (crawlPacer), so a domain is asked at most once per interval whichever tool asks. In-process: the jobs
// run in the worker process (pg-boss hands each job to one worker), so a Map of the next free slot per
// host is enough; if they ever run in several processes, this must become a table (next_slot per host,
// taken with UPDATE ... RETURNING) so the processes share it.

export const DEFAULT_DOMAIN_INTERVAL_MS = 10_000;

export class DomainPacer {
  private readonly nextSlot = new Map<string, number>();
  readonly intervalMs: number;
  private readonly clock: () => number;

  constructor(intervalMs = DEFAULT_DOMAIN_INTERVAL_MS, clock: () => number = Date.now) {
    this.intervalMs = intervalMs;
    this.clock = clock;
  }

  /** Books the next slot for `url`'s host and says how many ms to wait before sending (0: now). */
  reserve(url: string | URL): number {
    const host = new URL(url).hostname.toLowerCase();
    const now = this.clock();
    const slot = Math.max(now, this.nextSlot.get(host) ?? now);
    this.nextSlot.set(host, slot + this.intervalMs);
    return slot - now;
  }

  /** Waits for `url`'s host's slot. */
  async wait(url: string | URL): Promise<void> {
    const delay = this.reserve(url);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

let processPacer = new DomainPacer();
/** The pacer every crawl of this process shares. */
export function crawlPacer(): DomainPacer {
  return processPacer;
}
/** Replaces it (tests that read many pages of one loopback "domain"). */
export function setCrawlPacer(pacer: DomainPacer): void {
  processPacer = pacer;
}
