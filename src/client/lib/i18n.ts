import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import de from '../locales/de/common.json' with { type: 'json' };
import en from '../locales/en/common.json' with { type: 'json' };
import es from '../locales/es/common.json' with { type: 'json' };
import fr from '../locales/fr/common.json' with { type: 'json' };

export const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export const FALLBACK_LANGUAGE: Language = 'en';
/** Where the chosen language is cached (the detector reads it first, then the browser setting). */
export const LANGUAGE_STORAGE_KEY = 'i18nextLng';

export const resources = {
  en: { common: en },
  es: { common: es },
  fr: { common: fr },
  de: { common: de },
} as const;

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
    ns: ['common'],
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
