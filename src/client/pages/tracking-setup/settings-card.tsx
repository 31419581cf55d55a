import { PlusIcon, XIcon } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_PAYMENT_REFERRERS, DEFAULT_RETENTION_MONTHS, domainSchema, MAX_RETENTION_MONTHS, type TrackingSettingsInput, type TrackingSetup } from '../../../shared/tracking.ts';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { fieldErrorsListOf, serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

/** The domain a text names ("https://www.Shop.com/x" -> "www.shop.com"), or null with the reason it is not one. */
export function parseDomain(text: string): { domain: string } | { error: 'empty' | 'invalid' } {
  let value = text.trim().toLowerCase();
  if (!value) return { error: 'empty' };
  // A pasted address is reduced to its host name; anything else must be a host name already.
  if (/^https?:\/\//.test(value)) {
    try {
      value = new URL(value).hostname;
    } catch {
      return { error: 'invalid' };
    }
  }
  value = value.replace(/\.$/, '');
  const parsed = domainSchema.safeParse(value);
  return parsed.success ? { domain: parsed.data } : { error: 'invalid' };
}

function useSaveSettings() {
  const { t } = useTranslation('tracking-setup');
  const utils = trpc.useUtils();
  return trpc.tracking.updateSettings.useMutation({
    onSuccess: (saved) => {
      utils.tracking.setup.setData(undefined, saved);
      toast({ title: t('settings.saved'), variant: 'success' });
    },
    onError: (error) => {
      const field = fieldErrorsListOf(error)[0];
      toast({ title: t('settings.failed'), description: field?.message ?? serverMessage(error) ?? undefined, variant: 'destructive' });
    },
  });
}

/** A list of domains with add and remove; every change is saved at once, and a refused one keeps what was typed. */
function DomainList({
  id,
  label,
  hint,
  values,
  field,
  disabled,
  onReset,
}: {
  id: string;
  label: string;
  hint: string;
  values: string[];
  field: 'allowedDomains' | 'paymentReferrers';
  disabled: boolean;
  onReset?: { label: string; values: readonly string[] };
}) {
  const { t } = useTranslation('tracking-setup');
  const save = useSaveSettings();
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const errorId = `${inputId}-error`;

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = parseDomain(draft);
    if ('error' in parsed) {
      setError(t(`settings.domainErrors.${parsed.error}`));
      return;
    }
    if (values.includes(parsed.domain)) {
      setError(t('settings.domainErrors.duplicate', { domain: parsed.domain }));
      return;
    }
    setError(null);
    save.mutate({ [field]: [...values, parsed.domain] } as TrackingSettingsInput, {
      // The text stays until the save succeeds: a refusal loses nothing.
      onSuccess: () => setDraft(''),
      onError: (failure) => setError(fieldErrorsListOf(failure)[0]?.message ?? serverMessage(failure) ?? t('settings.failed')),
    });
  }

  return (
    <fieldset className="min-w-0 space-y-2" data-testid={id}>
      <legend className="font-medium">{label}</legend>
      <p className="text-base-content/70 text-sm">{hint}</p>
      <ul className="flex flex-wrap gap-2" aria-label={label}>
        {values.length === 0 && <li className="text-base-content/60 text-sm italic">{field === 'allowedDomains' ? t('settings.allSites') : t('settings.noneListed')}</li>}
        {values.map((value) => (
          <li key={value} className="badge badge-lg badge-outline gap-1 pr-1 font-mono text-xs" data-testid="domain-item">
            {value}
            <button
              type="button"
              className="btn btn-ghost btn-xs btn-circle"
              aria-label={t('settings.remove', { domain: value })}
              disabled={disabled || save.isPending}
              onClick={() => save.mutate({ [field]: values.filter((item) => item !== value) } as TrackingSettingsInput)}
            >
              <XIcon className="size-3" aria-hidden="true" />
            </button>
          </li>
        ))}
      </ul>
      <form className="flex flex-wrap items-start gap-2" onSubmit={submit} noValidate>
        <div className="min-w-0 flex-1">
          <label htmlFor={inputId} className="sr-only">
            {t('settings.addLabel', { list: label })}
          </label>
          <input
            id={inputId}
            className={`input input-sm w-full ${error ? 'input-error' : ''}`}
            placeholder={field === 'allowedDomains' ? 'shop.example.com' : 'checkout.example.com'}
            value={draft}
            disabled={disabled}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            onChange={(event) => {
              setDraft(event.target.value);
              if (error) setError(null);
            }}
          />
          {error && (
            <p id={errorId} className="text-error mt-1 text-sm" role="alert">
              {error}
            </p>
          )}
        </div>
        <button type="submit" className="btn btn-sm gap-1" disabled={disabled || save.isPending}>
          {save.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <PlusIcon className="size-4" aria-hidden="true" />}
          {t('settings.add')}
        </button>
        {onReset && (
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            disabled={disabled || save.isPending || (values.length === onReset.values.length && onReset.values.every((value) => values.includes(value)))}
            onClick={() => save.mutate({ [field]: [...onReset.values] } as TrackingSettingsInput)}
          >
            {onReset.label}
          </button>
        )}
      </form>
    </fieldset>
  );
}

/** Allowed domains, GPC, retention and payment referrers, each saved through tracking.updateSettings. */
export function TrackingSettingsCard({ setup, viewOnly }: { setup: TrackingSetup; viewOnly: boolean }) {
  const { t } = useTranslation('tracking-setup');
  const save = useSaveSettings();
  const [retention, setRetention] = useState(String(setup.retentionMonths));
  const retentionValue = Number(retention);
  const retentionValid = Number.isInteger(retentionValue) && retentionValue >= 1 && retentionValue <= MAX_RETENTION_MONTHS;

  return (
    <SectionCard titleId="tracking-settings" title={t('settings.title')} description={t('settings.description')} testId="tracking-settings">
      <DomainList id="allowed-domains" label={t('settings.allowedDomains')} hint={t('settings.allowedDomainsHint')} values={setup.allowedDomains} field="allowedDomains" disabled={viewOnly} />
      <div className="divider my-0" />
      <div className="flex items-start justify-between gap-4">
        <div className="min-w-0">
          <label htmlFor="honour-gpc" className="font-medium">
            {t('settings.gpc')}
          </label>
          <p id="honour-gpc-hint" className="text-base-content/70 text-sm">
            {t('settings.gpcHint')}
          </p>
        </div>
        <input
          id="honour-gpc"
          type="checkbox"
          role="switch"
          className="toggle toggle-primary shrink-0"
          checked={save.isPending && save.variables?.honourGpc !== undefined ? save.variables.honourGpc : setup.honourGpc}
          disabled={viewOnly || save.isPending}
          aria-describedby="honour-gpc-hint"
          onChange={(event) => save.mutate({ honourGpc: event.target.checked })}
        />
      </div>
      <div className="divider my-0" />
      <form
        className="flex flex-col gap-3 sm:flex-row sm:items-end"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (retentionValid) save.mutate({ retentionMonths: retentionValue });
        }}
      >
        <div className="min-w-0 flex-1">
          <label htmlFor="retention-months" className="font-medium">
            {t('settings.retention')}
          </label>
          <p id="retention-hint" className="text-base-content/70 text-sm">
            {t('settings.retentionHint', { default: DEFAULT_RETENTION_MONTHS, max: MAX_RETENTION_MONTHS })}
          </p>
          {!retentionValid && (
            <p className="text-error mt-1 text-sm" role="alert">
              {t('settings.retentionError', { max: MAX_RETENTION_MONTHS })}
            </p>
          )}
        </div>
        <div className="flex items-center gap-3">
        <div className="join">
          <input
            id="retention-months"
            type="number"
            min={1}
            max={MAX_RETENTION_MONTHS}
            className={`input input-sm join-item w-24 ${retentionValid ? '' : 'input-error'}`}
            value={retention}
            disabled={viewOnly}
            aria-describedby="retention-hint"
            aria-invalid={retentionValid ? undefined : true}
            onChange={(event) => setRetention(event.target.value)}
          />
          <span className="join-item bg-base-200 border-base-content/20 flex items-center border px-2 text-sm">{t('settings.months')}</span>
        </div>
        <button type="submit" className="btn btn-sm" disabled={viewOnly || save.isPending || !retentionValid || retentionValue === setup.retentionMonths}>
          {t('settings.save')}
        </button>
        </div>
      </form>
      <div className="divider my-0" />
      <DomainList
        id="payment-referrers"
        label={t('settings.paymentReferrers')}
        hint={t('settings.paymentReferrersHint')}
        values={setup.paymentReferrers}
        field="paymentReferrers"
        disabled={viewOnly}
        onReset={{ label: t('settings.resetDefaults'), values: DEFAULT_PAYMENT_REFERRERS }}
      />
    </SectionCard>
  );
}
