import { defineConfig, devices } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E2E_PORT, INTEGRATION_FAKES_ENV } from './e2e/integration-fakes-env.ts';
// Debian's Chromium; `playwright install` is never needed. One lookup, shared with the page fetcher's browser route.
import { chromiumLaunchOptions } from './src/server/modules/page-fetcher/chromium.ts';

const port = E2E_PORT;
const baseURL = `http://localhost:${port}`;

// One fresh database per run. The config is loaded again in every worker; they inherit the
// runner's environment, so only the runner creates (and afterwards removes) the directory.
if (!process.env.E2E_DATA_DIR) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'storepulse-e2e-'));
  process.env.E2E_DATA_DIR = dataDir;
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
}
const dataDir = process.env.E2E_DATA_DIR;


/**
 * Hang guards, not speed requirements. Every wait in e2e/ ends on the application's state (a text, a
 * data attribute such as data-chart-status="ready", the answer to a known request, page.clock for
 * timers), so on a healthy run these never run out, however slow the machine: they only bound how long
 * a broken test takes to say so. Sized for a 2-core machine at load ~10 (`npm run test:busy`), where a
 * step takes up to ~10 times as long as on a quiet one and the longest journey (~35 s quiet) a few
 * minutes. No test sets a budget of its own.
 */
const STEP_GUARD_MS = 90_000;
const TEST_GUARD_MS = 15 * 60_000;

// Runs against the built client (`npm run test:e2e` builds it first); this file never builds.
export default defineConfig({
  testDir: './e2e',
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  workers: process.env.CI ? 1 : undefined,
  // The JSON report feeds the one-line summary that `npm test` prints at the end.
  reporter: [['list'], ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? '.cache/test-results/playwright.json' }]],
  timeout: TEST_GUARD_MS,
  expect: { timeout: STEP_GUARD_MS },
  use: {
    actionTimeout: STEP_GUARD_MS,
    navigationTimeout: STEP_GUARD_MS,
    baseURL,
    locale: 'en-GB',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
  projects: [
    {
      name: 'chromium',
      use: { ...devices['Desktop Chrome'] },
    },
  ],
  webServer: {
    // The server's heap settings as `npm start` applies them.
    command: "bash -c '. scripts/server-node-options.sh && exec node src/server/main.ts'",
    url: `${baseURL}/healthz`,
    env: {
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // Every journey signs up from 127.0.0.1; the limits themselves are proven by the Vitest suite.
      RATE_LIMIT_REGISTRATIONS_PER_IP: '10000',
      RATE_LIMIT_LOGINS_PER_IP: '10000',
      // Lets a test act as a client of its own (X-Forwarded-For, see e2e/shell-helpers.ts).
      TRUST_PROXY: 'true',
      // The journeys' figures are converted with the synthetic seed's rates, never the ECB's (README, "Exchange rates").
      FX_SOURCE: 'synthetic',
      // The platforms of e2e/integrations.spec.ts: its fakes listen on these fixed ports (the server's env is fixed at start).
      ...INTEGRATION_FAKES_ENV,
      // Lets parallel work build into its own folder: CLIENT_DIST_DIR=/tmp/x npx vite build --outDir /tmp/x
      ...(process.env.CLIENT_DIST_DIR ? { CLIENT_DIST_DIR: process.env.CLIENT_DIST_DIR } : {}),
    },
    // A first start creates the PostgreSQL cluster and migrates it: ~10 s quiet, minutes on a loaded machine.
    timeout: 10 * 60_000,
    reuseExistingServer: false,
    // The server logs warnings and errors only (LOG_LEVEL): a 500 in a journey shows here with its stack.
    stdout: 'pipe',
    stderr: 'pipe',
    // SIGTERM lets the server stop its embedded PostgreSQL before the data directory is removed.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 2 * 60_000 },
  },
});
