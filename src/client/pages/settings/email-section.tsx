import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MailIcon } from 'lucide-react';
import { EMAIL_CHANGE_VALID_HOURS, requestEmailChangeInput, type AccountSettings } from '../../../shared/settings.ts';
import { toast } from '../../components/toast.tsx';
import { fieldErrorsOf } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { errorText, localizeFieldErrors, localizeIssues } from '../account-shared/messages.ts';
import { PasswordField, TextField } from '../../components/form-fields.tsx';
import { SubmitButton, useFieldErrors } from '../../components/form-state.tsx';
import { SettingsCard } from './settings-card.tsx';

const EMPTY = { newEmail: '', currentPassword: '' };

/**
 * The account's e-mail address. A new one needs the current password, and the account takes it only
 * when the link the server sends to it is opened; meanwhile the section says which address is waiting.
 */
export function EmailSection({ settings }: { settings: AccountSettings }) {
  const { t } = useTranslation('account');
  const utils = trpc.useUtils();
  const [fields, setFields] = useState(EMPTY);
  const errors = useFieldErrors();

  const request = trpc.settings.requestEmailChange.useMutation({
    onSuccess: (sent) => {
      setFields(EMPTY);
      errors.setFieldErrors({});
      utils.settings.get.setData(undefined, (current) => (current ? { ...current, pendingEmail: sent.pendingEmail } : current));
      toast({ title: t('settings.email.sent.title'), description: t('settings.email.sent.description', { email: sent.pendingEmail }), variant: 'success' });
    },
    onError: (error) => {
      errors.setFieldErrors(localizeFieldErrors(t, fieldErrorsOf(error)));
      toast({ title: t('settings.email.failed'), description: errorText(t, error), variant: 'destructive' });
    },
  });
  const withdraw = trpc.settings.cancelEmailChange.useMutation({
    onSuccess: (saved) => {
      utils.settings.get.setData(undefined, saved);
      toast({ title: t('settings.email.withdrawn'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('settings.failed.title'), description: errorText(t, error), variant: 'destructive' }),
  });

  function set(field: keyof typeof EMPTY) {
    return (value: string) => {
      setFields((current) => ({ ...current, [field]: value }));
      errors.clear(field);
    };
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = requestEmailChangeInput.safeParse(fields);
    if (!parsed.success) {
      errors.setFieldErrors(localizeIssues(t, parsed.error.issues));
      return;
    }
    errors.setFieldErrors({});
    request.mutate(parsed.data);
  }

  return (
    <SettingsCard id="email" icon={<MailIcon />} title={t('settings.email.title')} description={t('settings.email.description')}>
      <div className="text-sm">
        <span className="text-base-content/70">{t('settings.email.current')} </span>
        <span className="font-medium break-all" data-testid="current-email">
          {settings.email}
        </span>
      </div>
      {settings.pendingEmail && (
        <div role="status" className="alert alert-info alert-soft flex-wrap text-sm" data-testid="pending-email">
          <span className="min-w-0 flex-1 break-words">{t('settings.email.pending', { email: settings.pendingEmail, hours: EMAIL_CHANGE_VALID_HOURS })}</span>
          <button type="button" className="btn btn-sm" onClick={() => withdraw.mutate()} disabled={withdraw.isPending} aria-busy={withdraw.isPending}>
            {t('settings.email.withdraw')}
          </button>
        </div>
      )}
      <form className="grid gap-4 sm:grid-cols-2" onSubmit={submit} noValidate>
        <TextField
          id="settings-new-email"
          type="email"
          label={t('settings.email.new')}
          autoComplete="email"
          inputMode="email"
          value={fields.newEmail}
          {...errors.bind('newEmail', set('newEmail'))}
        />
        <PasswordField
          id="settings-email-password"
          label={t('settings.email.password')}
          autoComplete="current-password"
          value={fields.currentPassword}
          {...errors.bind('currentPassword', set('currentPassword'))}
        />
        <div className="flex flex-col-reverse gap-3 sm:col-span-2 sm:flex-row sm:items-center sm:justify-between">
          <p className="text-base-content/70 text-xs">{t('settings.email.how', { hours: EMAIL_CHANGE_VALID_HOURS })}</p>
          <SubmitButton pending={request.isPending} label={t('settings.email.send')} pendingLabel={t('settings.email.sending')} className="shrink-0" />
        </div>
      </form>
    </SettingsCard>
  );
}
