import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { UsersIcon } from 'lucide-react';
import { shellLinks } from '../../layout/navigation.ts';
import { useAccess } from '../../lib/use-access.ts';

/**
 * "Manage Users" (/manage-users: everyone who can see each of your stores), in the header of Guest Users
 * and Store Management: the spec's account menu has no entry for it. Shown only to whom the route admits.
 */
export function ManageUsersLink() {
  const { t } = useTranslation('guests');
  const access = useAccess();
  if (!access.ready || !shellLinks(access).manageUsers) return null;
  return (
    <Link href="/manage-users" className="btn btn-ghost btn-sm border-base-content/15 gap-2" title={t('manage.linkHint')} data-testid="manage-users-link">
      <UsersIcon />
      {t('manage.title')}
    </Link>
  );
}
