import { useTranslation } from 'react-i18next';
import { CheckIcon, MonitorIcon, MoonIcon, SunIcon } from 'lucide-react';
import { THEME_PREFERENCES, useTheme, type ThemePreference } from '../lib/theme.tsx';

const ICONS: Record<ThemePreference, typeof SunIcon> = { light: SunIcon, dark: MoonIcon, system: MonitorIcon };

function closeMenu(): void {
  // daisyUI's CSS dropdown stays open while focus is inside it.
  if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
}

/** Light / dark / system picker. */
export function ThemeMenu() {
  const { t } = useTranslation();
  const { preference, resolved, setPreference } = useTheme();
  const CurrentIcon = preference === 'system' ? MonitorIcon : resolved === 'dark' ? MoonIcon : SunIcon;
  return (
    <div className="dropdown dropdown-end">
      <div
        tabIndex={0}
        role="button"
        className="btn btn-ghost btn-sm btn-square text-lg"
        aria-label={t('theme.label')}
        title={t('theme.label')}
      >
        <CurrentIcon />
      </div>
      <ul tabIndex={0} className="dropdown-content menu bg-base-100 rounded-box border-base-content/10 z-20 mt-2 w-40 border p-1 shadow-lg">
        {THEME_PREFERENCES.map((option) => {
          const OptionIcon = ICONS[option];
          const selected = option === preference;
          return (
            <li key={option}>
              <button
                type="button"
                className={selected ? 'bg-primary/10 font-semibold' : undefined}
                aria-pressed={selected}
                onClick={() => {
                  setPreference(option);
                  closeMenu();
                }}
              >
                <OptionIcon />
                <span className="flex-1">{t(`theme.${option}`)}</span>
                {selected && <CheckIcon className="text-primary" />}
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
