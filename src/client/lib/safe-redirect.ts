export const DEFAULT_SIGNED_IN_PATH = '/dashboard';

/**
 * The path to return to after signing in, taken from a `redirect` query value. Only paths on this
 * site are accepted ("/orders?x=1"); anything else ("//evil.example", "https://...", "/\\evil",
 * the auth page itself) falls back to the dashboard.
 */
export function safeRedirectPath(value: string | null | undefined, origin = window.location.origin): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return DEFAULT_SIGNED_IN_PATH;
  try {
    const url = new URL(value, origin);
    if (url.origin !== origin) return DEFAULT_SIGNED_IN_PATH;
    if (url.pathname === '/auth' || url.pathname.startsWith('/api/') || url.pathname.startsWith('/trpc/')) return DEFAULT_SIGNED_IN_PATH;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return DEFAULT_SIGNED_IN_PATH;
  }
}

/** `/auth?redirect=...` for a page that needs sign-in. */
export function signInPathFor(wantedPath: string): string {
  return `/auth?redirect=${encodeURIComponent(wantedPath)}`;
}
