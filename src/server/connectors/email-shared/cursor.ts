import type { z } from 'zod';

// Cursors are JSON the engine stores between batches. Reading one back is checked like any input:
// a cursor from an older release or a damaged row must fail loudly, not resume at the wrong place.

export function encodeCursor(value: unknown): string {
  return JSON.stringify(value);
}

export function decodeCursor<T>(platform: string, text: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${platform}: the stored sync cursor is not JSON; restart the sync from the window's start`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${platform}: the stored sync cursor has an unknown shape; restart the sync from the window's start`);
  return parsed.data;
}

/** The query parameter `name` of a platform's "next page" URL, or null (we never follow the URL itself: its host could differ from the configured base URL). */
export function queryParamOf(url: string | null | undefined, name: string): string | null {
  if (!url) return null;
  try {
    return new URL(url, 'http://relative.invalid').searchParams.get(name);
  } catch {
    return null;
  }
}
