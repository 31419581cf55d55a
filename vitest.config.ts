import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // The platform fakes listen on 127.0.0.1 (test/fakes/): outbound requests may reach it in tests only
    // (src/server/outbound/; tests of the refusals set a policy of their own).
    env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' },
  },
});
