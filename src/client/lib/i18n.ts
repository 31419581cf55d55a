import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export const FALLBACK_LANGUAGE: Language = 'en';
/** Where the chosen language is cached (the detector reads it first, then the browser setting). */
export const LANGUAGE_STORAGE_KEY = 'i18nextLng';

type Translations = { [key: string]: string | Translations };

/**
 * Only the language in use is downloaded: one chunk per language with every namespace (a feature adds
 * its own locales/<language>/<namespace>.json and locales/<language>/texts-<language>.ts picks it up), and the long help and legal
 * texts and the tools' texts apart, fetched when their page asks for them. Switching language fetches the new one.
 */
const LANGUAGE_BUNDLES: Record<Language, () => Promise<{ default: Record<string, Record<string, unknown>> }>> = {
  en: () => import('../locales/en/texts-en.ts'),
  es: () => import('../locales/es/texts-es.ts'),
  fr: () => import('../locales/fr/texts-fr.ts'),
  de: () => import('../locales/de/texts-de.ts'),
};
// Namespaces fetched with their page, not in the language bundle: the long help and legal texts, and the
// tools' texts, which only their own pages use (the first load's script budget, e2e/first-load.spec.ts).
// The texts-<language>.ts files leave the same names out.
const LONG_TEXT_FILES = import.meta.glob<Translations>('../locales/*/{help,legal,meta-comments,product-images,shopping-optimizer,page-reviewer,tracking-setup}.json', { import: 'default' });
export const LONG_TEXT_NAMESPACES = ['help', 'legal', 'meta-comments', 'product-images', 'shopping-optimizer', 'page-reviewer', 'tracking-setup'];
/** The namespaces in the language bundles (every locales/en/*.json but those above). */
export const NAMESPACES = Object.keys(import.meta.glob('../locales/en/*.json'))
  .map((file) => /([^/]+)\.json$/.exec(file)![1]!)
  .filter((namespace) => !LONG_TEXT_NAMESPACES.includes(namespace));

const bundles = new Map<Language, Promise<Record<string, Translations>>>();

async function loadNamespace(language: Language, namespace: string): Promise<Translations> {
  if (LONG_TEXT_NAMESPACES.includes(namespace)) {
    const load = LONG_TEXT_FILES[`../locales/${language}/${namespace}.json`];
    if (!load) throw new Error(`No ${namespace} texts in ${language}`);
    return load();
  }
  let bundle = bundles.get(language);
  if (!bundle) {
    bundle = LANGUAGE_BUNDLES[language]().then((module) =>
      Object.fromEntries(Object.entries(module.default).map(([file, translations]) => [/([^/]+)\.json$/.exec(file)![1]!, translations as Translations])),
    );
    // A failed download is tried again on the next request instead of being remembered.
    bundle.catch(() => bundles.delete(language));
    bundles.set(language, bundle);
  }
  const translations = (await bundle)[namespace];
  if (!translations) throw new Error(`No ${namespace} texts in ${language}`);
  return translations;
}

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
  .use({
    type: 'backend',
    read(language: string, namespace: string, callback: (error: unknown, data: Translations | null) => void) {
      const base = language.split('-')[0];
      if (!isLanguage(base)) return callback(new Error(`Unsupported language ${language}`), null);
      loadNamespace(base, namespace).then(
        (translations) => callback(null, translations),
        (error: unknown) => callback(error, null),
      );
    },
  })
  .init({
    defaultNS: 'common',
    ns: NAMESPACES,
    supportedLngs: [...LANGUAGES],
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    // Every key exists in every language (locales.test.ts), so a supported language needs no fallback
    // download; English stands in only for a language we do not have.
    fallbackLng: (code: string | undefined) => (isLanguage(code?.split('-')[0]) ? [] : [FALLBACK_LANGUAGE]),
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
// Fired once the language's texts are in (at start and after each switch).
i18n.on('languageChanged', reflectLanguage);

export default i18n;
