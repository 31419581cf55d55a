import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';

/**
 * Changes several query-string parameters in one navigation (null removes one); the others (the date
 * range) are kept. Two setters called one after the other would each start from the same old query.
 */
export function useUpdateSearch(): (changes: Record<string, string | null>) => void {
  const search = useSearch();
  const [location, navigate] = useLocation();
  return useCallback(
    (changes) => {
      const params = new URLSearchParams(search);
      for (const [name, value] of Object.entries(changes)) {
        if (value === null || value === '') params.delete(name);
        else params.set(name, value);
      }
      const query = params.toString();
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [search, location, navigate],
  );
}

/** One parameter restricted to `allowed` values; `fallback` when absent or unknown (and then left out of the URL). */
export function readSearchParam<T extends string>(search: string, name: string, allowed: readonly T[], fallback: T): T {
  const raw = new URLSearchParams(search).get(name);
  return raw !== null && (allowed as readonly string[]).includes(raw) ? (raw as T) : fallback;
}

/**
 * One query-string parameter as screen state: it survives a reload and travels in a shared link.
 * The default value is left out of the URL.
 */
export function useSearchParam<T extends string>(name: string, allowed: readonly T[], fallback: T): [T, (value: T) => void] {
  const search = useSearch();
  const update = useUpdateSearch();
  const value = readSearchParam(search, name, allowed, fallback);
  const setValue = useCallback((next: T) => update({ [name]: next === fallback ? null : next }), [update, name, fallback]);
  return [value, setValue];
}

/** A free-text parameter (a search box). */
export function useSearchText(name: string): [string, (value: string) => void] {
  const search = useSearch();
  const update = useUpdateSearch();
  const value = new URLSearchParams(search).get(name) ?? '';
  const setValue = useCallback((next: string) => update({ [name]: next }), [update, name]);
  return [value, setValue];
}
