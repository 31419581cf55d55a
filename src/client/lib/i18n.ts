import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export const FALLBACK_LANGUAGE: Language = 'en';
/** Where the chosen language is cached (the detector reads it first, then the browser setting). */
export const LANGUAGE_STORAGE_KEY = 'i18nextLng';

type Translations = { [key: string]: string | Translations };

// Every locales/<language>/<namespace>.json is bundled; a feature adds its own namespace file per language.
const localeFiles = import.meta.glob<Translations>('../locales/*/*.json', { eager: true, import: 'default' });

export const resources: Record<string, Record<string, Translations>> = {};
for (const [file, translations] of Object.entries(localeFiles)) {
  const [, language, namespace] = /locales\/([^/]+)\/([^/]+)\.json$/.exec(file)!;
  (resources[language!] ??= {})[namespace!] = translations;
}
export const NAMESPACES = Object.keys(resources[FALLBACK_LANGUAGE] ?? {});

export function isLanguage(value: string | undefined): value is Language {
  return (LANGUAGES as readonly string[]).includes(value ?? '');
}

/** The supported language in use ("en-GB" counts as "en"). */
export function currentLanguage(): Language {
  const base = (i18n.resolvedLanguage ?? i18n.language ?? FALLBACK_LANGUAGE).split('-')[0];
  return isLanguage(base) ? base : FALLBACK_LANGUAGE;
}

void i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources,
    defaultNS: 'common',
    ns: NAMESPACES,
    supportedLngs: [...LANGUAGES],
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    fallbackLng: FALLBACK_LANGUAGE,
    detection: {
      order: ['localStorage', 'navigator'],
      lookupLocalStorage: LANGUAGE_STORAGE_KEY,
      caches: ['localStorage'],
    },
    interpolation: { escapeValue: false },
  });

function reflectLanguage(): void {
  document.documentElement.lang = currentLanguage();
  document.title = i18n.t('app.name');
}
reflectLanguage();
i18n.on('languageChanged', reflectLanguage);

export default i18n;
