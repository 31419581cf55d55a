// Debian's Chromium (`apt install chromium`), never a browser Playwright downloads: the one place that
// says where it is and how it is started. playwright.config.ts (the tests) and the page fetcher's
// browser route (browser-route.ts) both launch it with these options.

export const CHROMIUM_EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launch options for Playwright's `chromium.launch` / `use.launchOptions`. */
export const chromiumLaunchOptions = { executablePath: CHROMIUM_EXECUTABLE, args: [...CHROMIUM_ARGS] };
