import { defineConfig } from 'vitest/config';

/**
 * A hang guard, not a speed requirement: tests wait on state (a job's row, a run's status, through
 * `expect.poll`), never on the clock, so a healthy run never reaches it however loaded the machine.
 * The slowest test takes ~5 s on a quiet 2-core machine and up to ~10 times that at load ~10
 * (`npm run test:busy`). No test sets a budget of its own.
 */
const GUARD_MS = 5 * 60_000;

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: GUARD_MS,
    hookTimeout: GUARD_MS,
    // expect.poll(...) asks again every 100 ms until the state is reached or the guard runs out.
    expect: { poll: { interval: 100, timeout: GUARD_MS } },
    // The platform fakes listen on 127.0.0.1 (test/fakes/): outbound requests may reach it in tests only
    // (src/server/outbound/; tests of the refusals set a policy of their own).
    env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' },
  },
});
