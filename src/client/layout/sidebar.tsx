import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { XIcon } from 'lucide-react';
import type { Access } from '../lib/access.ts';
import { NAVIGATION, isActiveEntry, isActiveGroup, isActivePath, navEntryState, type NavEntry } from './navigation.ts';
import { PulseIcon } from '../components/brand.tsx';

type Variant = 'rail' | 'drawer';

function NavItem({ entry, access, variant }: { entry: NavEntry; access: Access; variant: Variant }) {
  const { t } = useTranslation('shell');
  const [location] = useLocation();
  const state = navEntryState(entry, access);
  const label = t(`nav.items.${entry.key}`);
  const active = state.enabled && isActiveEntry(entry, location);
  const Icon = entry.icon;
  const rail = variant === 'rail';
  const base = rail
    ? 'flex w-full flex-col items-center gap-1 rounded-box px-0.5 py-2 text-center text-[11px] leading-tight'
    : 'flex w-full items-center gap-3 rounded-box px-3 py-2.5 text-sm';
  const comingSoon = state.comingSoon && (
    <span className={`badge bg-base-200 border-base-content/15 text-base-content/80 whitespace-nowrap ${rail ? 'badge-xs px-1 text-[9px]' : 'badge-sm ml-auto'}`}>
      {t('nav.comingSoon')}
    </span>
  );

  if (!state.enabled) {
    const reason = state.lockedReason ? t(`nav.locked.${state.lockedReason}`) : undefined;
    return (
      <li>
        <a
          role="link"
          aria-disabled="true"
          title={reason}
          data-testid={`nav-${entry.key}`}
          className={`${base} text-base-content/45 cursor-not-allowed`}
        >
          <Icon className={rail ? 'text-xl' : 'text-lg'} />
          <span className={rail ? 'max-w-full break-words hyphens-auto' : 'min-w-0 flex-1'}>{label}</span>
          {comingSoon}
          {!state.comingSoon && reason && <span className="sr-only">({reason})</span>}
        </a>
      </li>
    );
  }
  return (
    <li>
      <Link
        href={entry.href}
        // On a screen of the entry's section (Revenue under Analytics) the entry is current, not the page.
        aria-current={active ? (isActivePath(entry.href, location) ? 'page' : 'true') : undefined}
        data-testid={`nav-${entry.key}`}
        className={`${base} transition-colors ${
          active ? 'bg-primary/12 text-base-content font-semibold' : 'text-base-content/80 hover:bg-base-200 hover:text-base-content'
        }`}
      >
        <Icon className={`${rail ? 'text-xl' : 'text-lg'} ${active ? 'text-primary' : ''}`} />
        <span className={rail ? 'max-w-full break-words hyphens-auto' : 'min-w-0 flex-1'}>{label}</span>
      </Link>
    </li>
  );
}

/**
 * The navigation entries and groups, as a 90 px rail (desktop) or a wide list (slide-in menu). On a
 * screen of a group's own section (Bing Ads, reached through the Advertising tabs) none of its entries
 * is current, so the group is: its heading turns the brand colour, its entries sit on a tinted panel,
 * and screen readers hear "current section" after the heading.
 */
export function NavigationList({ access, variant }: { access: Access; variant: Variant }) {
  const { t } = useTranslation('shell');
  const [location] = useLocation();
  const rail = variant === 'rail';
  return (
    <div className={rail ? 'space-y-1 px-1.5' : 'space-y-1 px-3'}>
      {NAVIGATION.map((group, index) => {
        const current = access.hasAccess && isActiveGroup(group, location);
        return (
          <div
            key={group.key ?? `group-${index}`}
            className={group.key ? 'border-base-content/10 border-t pt-2' : undefined}
            data-testid={group.key ? `nav-group-${group.key}` : undefined}
            data-current={current || undefined}
          >
            {group.key && (
              <p
                className={`font-semibold tracking-wide uppercase ${current ? 'text-primary' : 'text-base-content/70'} ${rail ? 'mb-1 text-center text-[9px]' : 'mb-1 px-3 text-xs'}`}
              >
                <span id={`nav-group-${variant}-${group.key}`}>{t(`nav.groups.${group.key}`)}</span>
                {current && <span className="sr-only"> ({t('nav.currentSection')})</span>}
              </p>
            )}
            <ul
              className={`space-y-0.5 ${current ? 'bg-primary/8 rounded-box ring-primary/25 ring-1' : ''}`}
              aria-labelledby={group.key ? `nav-group-${variant}-${group.key}` : undefined}
            >
              {group.entries.map((entry) => (
                <NavItem key={entry.key} entry={entry} access={access} variant={variant} />
              ))}
            </ul>
            {group.key && <div className="border-base-content/10 mt-2 border-b" aria-hidden="true" />}
          </div>
        );
      })}
    </div>
  );
}

function HomeMark() {
  const { t } = useTranslation('shell');
  return (
    <Link href="/dashboard" aria-label={t('nav.home')} title={t('nav.home')} className="rounded-box inline-grid place-items-center">
      <span className="bg-primary text-primary-content grid size-10 place-items-center rounded-xl text-xl shadow-sm">
        <PulseIcon strokeWidth={2.5} />
      </span>
    </Link>
  );
}

/** The left sidebar, 90 px wide, from 768 px up. */
export function Sidebar({ access }: { access: Access }) {
  const { t } = useTranslation('shell');
  return (
    <aside
      className="bg-base-100 border-base-content/10 sticky top-0 hidden h-screen w-[90px] shrink-0 flex-col border-r md:flex"
      data-testid="sidebar"
    >
      <div className="flex h-16 shrink-0 items-center justify-center">
        <HomeMark />
      </div>
      <nav aria-label={t('nav.label')} className="min-h-0 flex-1 overflow-y-auto pb-4">
        <NavigationList access={access} variant="rail" />
      </nav>
    </aside>
  );
}

/** Below 768 px: the same navigation in a slide-in panel (a modal dialog: focus stays inside, Escape closes). */
export function MobileNavigation({ access, open, onClose }: { access: Access; open: boolean; onClose: () => void }) {
  const { t } = useTranslation(['shell', 'common']);
  const dialog = useRef<HTMLDialogElement>(null);
  const [location] = useLocation();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  // Following a link closes the menu.
  const firstLocation = useRef(location);
  useEffect(() => {
    if (location !== firstLocation.current) {
      firstLocation.current = location;
      onClose();
    }
  }, [location, onClose]);

  return (
    <dialog
      ref={dialog}
      className="modal modal-start md:hidden"
      aria-label={t('nav.label')}
      onClose={onClose}
      data-testid="mobile-navigation"
    >
      <div className="modal-box bg-base-100 flex w-72 max-w-[85vw] flex-col p-0">
        <div className="border-base-content/10 flex h-16 shrink-0 items-center justify-between border-b px-4">
          <span className="inline-flex items-center gap-2.5 font-bold">
            <span className="bg-primary text-primary-content grid size-8 place-items-center rounded-xl text-lg">
              <PulseIcon strokeWidth={2.5} />
            </span>
            {t('common:app.name')}
          </span>
          <button type="button" className="btn btn-ghost btn-square btn-sm text-lg" aria-label={t('nav.closeMenu')} onClick={onClose}>
            <XIcon />
          </button>
        </div>
        <nav aria-label={t('nav.label')} className="min-h-0 flex-1 overflow-y-auto py-3">
          {open && <NavigationList access={access} variant="drawer" />}
        </nav>
      </div>
      <form method="dialog" className="modal-backdrop">
        <button type="submit" tabIndex={-1} aria-label={t('nav.closeMenu')}>
          {t('nav.closeMenu')}
        </button>
      </form>
    </dialog>
  );
}
