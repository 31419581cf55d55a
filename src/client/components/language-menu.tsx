import { useTranslation } from 'react-i18next';
import { CheckIcon, GlobeIcon } from 'lucide-react';
import { LANGUAGES, currentLanguage } from '../lib/i18n.ts';

function closeMenu(): void {
  if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
}

/** Language picker; the choice is cached in local storage by the detector. */
export function LanguageMenu() {
  const { t, i18n } = useTranslation();
  const active = currentLanguage();
  return (
    <div className="dropdown dropdown-end">
      <div tabIndex={0} role="button" className="btn btn-ghost btn-sm gap-1.5 px-2" title={t('language.label')}>
        <GlobeIcon className="text-base" />
        <span className="sr-only">{t('language.label')}:</span>
        <span className="text-xs font-semibold uppercase">{active}</span>
      </div>
      <ul tabIndex={0} className="dropdown-content menu bg-base-100 rounded-box border-base-content/10 z-20 mt-2 w-44 border p-1 shadow-lg">
        {LANGUAGES.map((language) => {
          const selected = language === active;
          return (
            <li key={language}>
              <button
                type="button"
                lang={language}
                className={selected ? 'bg-primary/10 font-semibold' : undefined}
                aria-pressed={selected}
                onClick={() => {
                  void i18n.changeLanguage(language);
                  closeMenu();
                }}
              >
                <span className="flex-1">{t(`language.names.${language}`)}</span>
                {selected && <CheckIcon className="text-primary" />}
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
