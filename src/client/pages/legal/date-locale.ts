/**
 * The locale to format dates in: the browser's own variant of the interface language when it has one
 * (en-GB shows "21 November 2026", en-US "November 21, 2026"), else the language itself.
 */
export function formattingLocale(language: string | undefined): string {
  const base = (language ?? 'en').split('-')[0]!;
  const browser = typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language];
  return browser.find((candidate) => candidate.split('-')[0] === base) ?? base;
}
