/** Name of the analytics session cookie (spec section 9). */
const ANALYTICS_SESSION_COOKIE = 'analytics.sid';

/**
 * The analytics session id: the `analytics.sid` cookie up to its first dot (what follows is the
 * signature), or the user id when the cookie is absent or unreadable (an HttpOnly cookie never
 * reaches scripts, so the fallback is the usual case).
 */
export function analyticsSessionId(
  userId: number | string | null | undefined,
  cookieString: string = typeof document === 'undefined' ? '' : document.cookie,
): string | null {
  for (const part of cookieString.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() !== ANALYTICS_SESSION_COOKIE) continue;
    let value = part.slice(separator + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // Keep the raw value.
    }
    const id = value.split('.')[0];
    if (id) return id;
  }
  return userId === null || userId === undefined ? null : String(userId);
}
