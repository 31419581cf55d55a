import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash, randomBytes } from 'node:crypto';
import { isbot } from 'isbot';
import { sqlRunner } from '../commerce/raw-sql.ts';

// What the collector keeps about a visitor who said no (README, "Tracking: privacy"): no cookie and
// no id, only a hash of (daily salt, store, address, user agent) that counts visits within a day.
// The salt is random, made per UTC day, and deleted the day after, so that yesterday's hashes can no
// longer be linked to anyone. The address itself is never stored.

const DAY_MS = 86_400_000;

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export class DailySalt {
  private cached: { day: string; salt: Buffer } | null = null;
  private loading: Promise<Buffer> | null = null;

  private readonly fork: () => EntityManager;

  constructor(fork: () => EntityManager) {
    this.fork = fork;
  }

  async current(now = new Date()): Promise<Buffer> {
    const day = utcDay(now);
    if (this.cached?.day === day) return this.cached.salt;
    this.loading ??= saltOf(this.fork(), day).then(
      (salt) => {
        this.cached = { day, salt };
        this.loading = null;
        return salt;
      },
      (error: unknown) => {
        this.loading = null;
        throw error;
      },
    );
    return this.loading;
  }
}

/** The day's salt, the same in every process on the database (the first one to ask makes it). */
async function saltOf(em: EntityManager, day: string): Promise<Buffer> {
  const sql = sqlRunner(em);
  await sql.run(`insert into tracking_salts (day, salt) values ($1::date, $2) on conflict (day) do nothing`, [day, randomBytes(32)]);
  const [row] = await sql.rows<{ salt: Buffer }>(`select salt from tracking_salts where day = $1::date`, [day]);
  return row!.salt;
}

/** Deletes the salts of days before yesterday: their hashes can no longer be recomputed. */
export async function deleteOldSalts(em: EntityManager, now = new Date()): Promise<number> {
  return sqlRunner(em).run(`delete from tracking_salts where day < $1::date`, [utcDay(new Date(now.getTime() - DAY_MS))]);
}

export function visitorHash(salt: Buffer, storeId: number, ip: string, userAgent: string): string {
  return createHash('sha256').update(salt).update(`\u0000${storeId}\u0000${ip}\u0000${userAgent}`).digest('base64url').slice(0, 32);
}

const HEADLESS = /HeadlessChrome|PhantomJS|Electron\/|puppeteer|playwright|selenium|webdriver|Lighthouse|Chrome-Lighthouse/i;

/**
 * Bots: the isbot package's list of crawler user agents, headless browsers by their user agent, and
 * a browser driven by automation (navigator.webdriver, which the pixel sends as `wd`). An empty user
 * agent is a script, not a browser.
 */
export function botReason(userAgent: string | undefined, webdriver: boolean): string | null {
  if (!userAgent) return 'bot: no user agent';
  if (webdriver) return 'bot: automation';
  if (HEADLESS.test(userAgent)) return 'bot: headless browser';
  if (isbot(userAgent)) return 'bot: crawler';
  return null;
}
