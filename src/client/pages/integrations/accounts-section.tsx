import { ClockIcon, ListChecksIcon, TriangleAlertIcon } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConnectionAccountView, Integration } from '../../../shared/integrations.ts';
import { Modal } from '../../components/modal.tsx';
import { PlatformLogo } from '../../components/platform-logo.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { useIntegrationCache } from './use-integration-cache.ts';

// Several ad accounts per login: the card lists the accounts being synced (with their currency and,
// when it is not the store's, their time zone), and a dialog lets the owner choose which ones.

/** "America/New_York" -> "America/New York (UTC−05:00)" in the reader's language. */
export function zoneLabel(zone: string, locale: string): string {
  let offset = '';
  try {
    offset = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(new Date()).find((part) => part.type === 'timeZoneName')?.value ?? '';
  } catch {
    // An unknown zone is shown as it is.
  }
  const name = zone.replaceAll('_', ' ');
  return offset ? `${name} (${offset.replace('GMT', 'UTC') || 'UTC'})` : name;
}

function AccountFacts({ account }: { account: ConnectionAccountView }) {
  const { t, i18n } = useTranslation('integrations');
  return (
    <span className="text-base-content/70 text-xs">
      {[account.accountId, account.currency, account.timezone ? zoneLabel(account.timezone, i18n.language) : null].filter(Boolean).join(' · ')}
      {account.isManager && <span className="badge badge-xs badge-outline ml-2">{t('accounts.manager')}</span>}
    </span>
  );
}

/** The accounts being synced, a note for those whose days are not the store's, and the Choose button. */
export function AccountsSection({ integration, title, viewOnly }: { integration: Integration; title: string; viewOnly: boolean }) {
  const { t, i18n } = useTranslation('integrations');
  const [choosing, setChoosing] = useState(false);
  const waiting = integration.status === 'choose_accounts';
  const chosen = integration.accounts.filter((account) => account.selected);
  const otherZones = chosen.filter((account) => account.timezoneDiffers);
  if (!waiting && chosen.length === 0) return null;

  return (
    <section className="space-y-2 text-sm" data-testid="integration-accounts" aria-label={t('accounts.label', { platform: title })}>
      {waiting ? (
        <div role="status" className="alert alert-soft alert-info items-start py-2.5">
          <ListChecksIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
          <div className="min-w-0">
            <p className="font-medium">{t('accounts.waitingTitle', { count: integration.accounts.filter((account) => !account.isManager).length })}</p>
            <p className="text-xs opacity-90">{t('accounts.waitingBody')}</p>
          </div>
        </div>
      ) : (
        <ul className="space-y-1" data-testid="chosen-accounts">
          {chosen.map((account) => (
            <li key={account.accountId} className="flex min-w-0 flex-wrap items-baseline gap-x-2">
              <span className="truncate font-medium">{account.name}</span>
              <AccountFacts account={account} />
            </li>
          ))}
        </ul>
      )}
      {otherZones.length > 0 && (
        <p className="text-base-content/75 flex items-start gap-1.5 text-xs" data-testid="account-timezone-note">
          <ClockIcon className="mt-0.5 size-3.5 shrink-0" aria-hidden="true" />
          <span>
            {t('accounts.otherZone', {
              count: otherZones.length,
              accounts: otherZones.map((account) => account.name).join(', '),
              zone: zoneLabel(otherZones[0]!.timezone!, i18n.language),
              store: zoneLabel(integration.storeTimezone, i18n.language),
            })}
          </span>
        </p>
      )}
      {!viewOnly && (
        <button type="button" className={`btn btn-sm gap-1.5 ${waiting ? 'btn-primary' : 'btn-ghost'}`} onClick={() => setChoosing(true)} data-testid="choose-accounts">
          <ListChecksIcon className="size-4" aria-hidden="true" />
          {waiting ? t('accounts.choose') : t('accounts.change')}
        </button>
      )}
      <ChooseAccountsDialog integration={choosing ? integration : null} title={title} onClose={() => setChoosing(false)} />
    </section>
  );
}

/** Checkboxes of every account the login reaches (asked of the platform when the dialog opens). */
function ChooseAccountsDialog({ integration, title, onClose }: { integration: Integration | null; title: string; onClose: () => void }) {
  const titleId = useId();
  return (
    <Modal open={integration !== null} titleId={titleId} onClose={onClose} testId="accounts-dialog" boxClassName="sm:max-w-xl">
      {integration && <ChooseAccountsForm integration={integration} title={title} titleId={titleId} onClose={onClose} />}
    </Modal>
  );
}

function ChooseAccountsForm({ integration, title, titleId, onClose }: { integration: Integration; title: string; titleId: string; onClose: () => void }) {
  const { t } = useTranslation('integrations');
  const cache = useIntegrationCache();
  const listed = trpc.integrations.accounts.useQuery({ platform: integration.platform }, { staleTime: 0, retry: false });
  const accounts = listed.data?.accounts ?? integration.accounts;
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const selected = picked ?? new Set(accounts.filter((account) => account.selected).map((account) => account.accountId));
  const [error, setError] = useState<string | null>(null);
  const choose = trpc.integrations.chooseAccounts.useMutation({
    onSuccess: (updated) => {
      cache.replace(updated);
      cache.toast({ title: t('accounts.saved', { platform: title, count: selected.size }), variant: 'success' });
      onClose();
    },
    onError: (failure) => setError(serverMessage(failure) ?? t('errors.connection')),
  });

  function toggle(accountId: string, on: boolean) {
    const next = new Set(selected);
    if (on) next.add(accountId);
    else next.delete(accountId);
    setPicked(next);
    setError(null);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (selected.size === 0) return setError(t('accounts.none'));
    choose.mutate({ platform: integration.platform, accountIds: [...selected] });
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      <div className="flex items-start gap-4">
        <PlatformLogo platform={integration.platform} />
        <div className="min-w-0">
          <h2 id={titleId} className="text-lg font-semibold">
            {t('accounts.dialogTitle', { platform: title })}
          </h2>
          <p className="text-base-content/75 mt-1 text-sm">{t('accounts.dialogIntro')}</p>
        </div>
      </div>
      {listed.data?.listError && (
        <p role="alert" className="alert alert-soft alert-warning py-2 text-sm">
          <TriangleAlertIcon className="size-4 shrink-0" aria-hidden="true" />
          {listed.data.listError}
        </p>
      )}
      {listed.isLoading && accounts.length === 0 ? (
        <p className="flex items-center gap-2 text-sm" role="status">
          <span className="loading loading-spinner loading-sm" aria-hidden="true" />
          {t('accounts.loading')}
        </p>
      ) : (
        <fieldset className="max-h-80 space-y-1 overflow-y-auto pr-1" aria-label={t('accounts.label', { platform: title })}>
          {accounts.map((account) => (
            <label
              key={account.accountId}
              className={`rounded-box flex items-start gap-3 px-2 py-2 ${account.isManager ? 'opacity-60' : 'hover:bg-base-200 cursor-pointer'}`}
              data-testid="account-option"
              data-account={account.accountId}
            >
              <input
                type="checkbox"
                className="checkbox checkbox-sm checkbox-primary mt-0.5"
                checked={selected.has(account.accountId)}
                disabled={account.isManager || choose.isPending}
                onChange={(event) => toggle(account.accountId, event.target.checked)}
              />
              <span className="min-w-0">
                <span className="block truncate font-medium">{account.name}</span>
                <AccountFacts account={account} />
                {account.isManager && <span className="text-base-content/70 block text-xs">{t('accounts.managerHint')}</span>}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      {error && (
        <p role="alert" className="text-error text-sm">
          {error}
        </p>
      )}
      <p className="text-base-content/70 text-xs">{t('accounts.backfillNote')}</p>
      <div className="modal-action mt-2 flex-col-reverse gap-2 sm:flex-row">
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={choose.isPending}>
          {t('actions.cancel')}
        </button>
        <button type="submit" className="btn btn-primary gap-2" disabled={choose.isPending} aria-busy={choose.isPending}>
          {choose.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {t('accounts.save', { count: selected.size })}
        </button>
      </div>
    </form>
  );
}
