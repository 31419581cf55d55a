import { useTranslation } from 'react-i18next';
import { MenuIcon } from 'lucide-react';
import type { Access } from '../lib/access.ts';
import type { CurrentUser } from '../lib/session.ts';
import { AccountMenu } from './account-menu.tsx';
import { ConnectionStatus } from './connection-status.tsx';
import { shellLinks } from './navigation.ts';
import { StoreSwitcher } from './store-switcher.tsx';
import { PulseIcon } from '../components/brand.tsx';

/** The top bar: the menu button (below 768 px), the active store, connection health and the account menu. */
export function Header({ user, access, onOpenMenu }: { user: CurrentUser; access: Access; onOpenMenu: () => void }) {
  const { t } = useTranslation('shell');
  return (
    <header className="bg-base-100/95 border-base-content/10 sticky top-0 z-30 border-b backdrop-blur" data-testid="app-header">
      <div className="flex h-16 items-center gap-1 px-2 sm:gap-2 sm:px-4 lg:px-6">
        <button
          type="button"
          className="btn btn-ghost btn-square text-xl md:hidden"
          aria-label={t('nav.openMenu')}
          title={t('nav.openMenu')}
          onClick={onOpenMenu}
          data-testid="open-menu"
        >
          <MenuIcon />
        </button>
        <span className="bg-primary text-primary-content mr-1 hidden size-8 place-items-center rounded-xl text-lg min-[420px]:grid md:hidden" aria-hidden="true">
          <PulseIcon strokeWidth={2.5} />
        </span>
        <StoreSwitcher allStores={shellLinks(access).allStores} />
        <div className="ml-auto flex items-center gap-0.5 sm:gap-1">
          <ConnectionStatus />
          <AccountMenu user={user} access={access} />
        </div>
      </div>
    </header>
  );
}
