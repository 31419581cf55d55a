import { Suspense, useCallback, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { useAccess, useGuestStatus, useStores } from '../lib/use-access.ts';
import type { CurrentUser } from '../lib/session.ts';
import { FirstStoreGate } from './first-store-gate.tsx';
import { GuestBanner } from './guest-banner.tsx';
import { PaymentBanner } from './payment-banner.tsx';
import { Header } from './header.tsx';
import { sectionOf, shellLinks } from './navigation.ts';
import { SectionTabs } from './section-tabs.tsx';
import { MobileNavigation, Sidebar } from './sidebar.tsx';

/** Spinner inside the layout while a page's code loads. */
export function ContentLoading({ message }: { message: string }) {
  return (
    <div className="flex min-h-[50vh] flex-col items-center justify-center gap-3" role="status" aria-live="polite">
      <span className="loading loading-spinner loading-lg text-primary" aria-hidden="true" />
      <p className="text-base-content/70 text-sm">{message}</p>
    </div>
  );
}

/** The admin console works without a store of one's own; everywhere else a subscriber must have one. */
function needsFirstStore(path: string): boolean {
  return !(path === '/admin' || path.startsWith('/admin/'));
}

/**
 * The signed-in shell: guest banner, 90 px sidebar (a slide-in menu below 768 px), header, then the
 * page. `readsStoreData`: the page calls the active store's data procedures (every subscription page).
 */
export function AppLayout({ user, readsStoreData = true, children }: { user: CurrentUser; readsStoreData?: boolean; children: ReactNode }) {
  const { t } = useTranslation('shell');
  const access = useAccess();
  const guest = useGuestStatus();
  const { list } = useStores();
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  const storeRequired = access.ready && access.hasAccess && !access.guestMode && needsFirstStore(location);
  const showGate = storeRequired && list.data?.length === 0;
  // The page reads the active store's data: it waits until a store is known to exist (the list comes
  // with the subscription, in parallel), and stays empty behind the first-store dialog, so a new user
  // makes no data call that can only answer "No active store selected".
  // Pages that read no store data (help center, store management, pricing) show dimmed behind it.
  const holdPage = readsStoreData && storeRequired && (list.isPending || showGate);
  const section = shellLinks(access).sectionTabs ? sectionOf(location) : null;

  return (
    <div className="flex min-h-screen flex-col">
      {/* The first tab stop: past the banner, sidebar and header straight to the page. */}
      <a
        href="#main-content"
        className="btn btn-primary btn-sm sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-[100]"
        data-testid="skip-link"
        onClick={(event) => {
          // Focus the page itself (the hash alone scrolls but leaves focus where it was in some browsers).
          event.preventDefault();
          document.getElementById('main-content')?.focus();
        }}
      >
        {t('skipToContent')}
      </a>
      {guest.inGuestMode && <GuestBanner name={guest.guestUsername ?? ''} />}
      {!guest.inGuestMode && access.ready && <PaymentBanner />}
      <div className="flex flex-1">
        <Sidebar access={access} />
        <MobileNavigation access={access} open={menuOpen} onClose={closeMenu} />
        <div className="flex min-w-0 flex-1 flex-col">
          <Header user={user} access={access} onOpenMenu={() => setMenuOpen(true)} />
          <main className="flex-1 px-4 py-6 outline-none sm:px-6 sm:py-8 lg:px-8" id="main-content" tabIndex={-1}>
            {holdPage ? (
              !showGate && <ContentLoading message={t('routing.checkingAccess')} />
            ) : (
              <>
                {section && <SectionTabs section={section} path={location} />}
                <Suspense fallback={<ContentLoading message={t('routing.loadingPage')} />}>{children}</Suspense>
              </>
            )}
          </main>
        </div>
      </div>
      {showGate && <FirstStoreGate />}
    </div>
  );
}
