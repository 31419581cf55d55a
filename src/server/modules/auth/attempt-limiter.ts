import { AppError } from '../../errors.ts';

export interface AttemptLimit {
  max: number;
  windowMs: number;
}

/**
 * Counts attempts per key in a sliding window (in this process's memory) and refuses with
 * 429 and a Retry-After once a key has used up its window.
 */
export class AttemptLimiter {
  private readonly attempts = new Map<string, number[]>();
  private readonly limit: AttemptLimit;
  private readonly message: (minutes: number) => string;
  private readonly now: () => number;

  constructor(limit: AttemptLimit, message: (minutes: number) => string, now: () => number = Date.now) {
    this.limit = limit;
    this.message = message;
    this.now = now;
  }

  private recent(key: string): number[] {
    const since = this.now() - this.limit.windowMs;
    const kept = (this.attempts.get(key) ?? []).filter((at) => at > since);
    if (kept.length === 0) this.attempts.delete(key);
    else this.attempts.set(key, kept);
    return kept;
  }

  /** Throws TOO_MANY_REQUESTS when the key has no attempts left. */
  assertAllowed(key: string): void {
    const recent = this.recent(key);
    if (recent.length < this.limit.max) return;
    const retryAfterMs = recent[0]! + this.limit.windowMs - this.now();
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    throw new AppError('TOO_MANY_REQUESTS', this.message(Math.ceil(retryAfterSeconds / 60)), { retryAfterSeconds });
  }

  record(key: string): void {
    this.attempts.set(key, [...this.recent(key), this.now()]);
  }

  reset(key: string): void {
    this.attempts.delete(key);
  }
}

export interface AuthRateLimits {
  loginPerIp: AttemptLimit;
  loginFailuresPerUsername: AttemptLimit;
  registrationsPerIp: AttemptLimit;
  /** Answers saying that a username or e-mail address belongs to an account (registration, e-mail change). */
  takenAnswersPerIp: AttemptLimit;
}

export const DEFAULT_AUTH_RATE_LIMITS: AuthRateLimits = {
  loginPerIp: { max: 30, windowMs: 15 * 60_000 },
  loginFailuresPerUsername: { max: 5, windowMs: 15 * 60_000 },
  registrationsPerIp: { max: 10, windowMs: 60 * 60_000 },
  takenAnswersPerIp: { max: 5, windowMs: 60 * 60_000 },
};

const tryAgainIn = (what: string) => (minutes: number) =>
  `Too many ${what}. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;

export function createAuthLimiters(limits: AuthRateLimits = DEFAULT_AUTH_RATE_LIMITS) {
  return {
    loginPerIp: new AttemptLimiter(limits.loginPerIp, tryAgainIn('sign-in attempts')),
    loginFailuresPerUsername: new AttemptLimiter(limits.loginFailuresPerUsername, tryAgainIn('failed sign-in attempts')),
    registrationsPerIp: new AttemptLimiter(limits.registrationsPerIp, tryAgainIn('registrations from this network')),
    takenAnswersPerIp: new AttemptLimiter(limits.takenAnswersPerIp, tryAgainIn('attempts with names or addresses already in use')),
  };
}
export type AuthLimiters = ReturnType<typeof createAuthLimiters>;
