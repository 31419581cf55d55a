import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { costSettingsSchema, type CostSettings } from '../../../shared/finance.ts';
import { DataError } from '../../components/data-page.tsx';
import { TextField } from '../../components/form-fields.tsx';
import { FormAlert, SubmitButton, useFormErrors } from '../../components/form-state.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { trpc } from '../../lib/trpc.ts';
import { inputToMinor, minorToInput } from './pnl-format.ts';

interface SettingsDraft {
  feePercent: string;
  fixedFee: string;
  shipping: string;
  defaultCogs: string;
}

function draftOf(settings: CostSettings): SettingsDraft {
  return {
    feePercent: (settings.paymentFeePercentBasisPoints / 100).toString(),
    fixedFee: minorToInput(settings.paymentFeeFixedMinor),
    shipping: minorToInput(settings.shippingCostPerOrderMinor),
    defaultCogs: settings.defaultCogsPercent === null ? '' : String(settings.defaultCogsPercent),
  };
}

/** "2.9" -> 290 basis points; NaN when not a number with at most two decimals. */
function percentToBasisPoints(text: string): number {
  const value = inputToMinor(text);
  return value === null ? Number.NaN : value;
}

/** Payment fee, fixed fee, shipping cost per order and the default COGS % of the P&L. */
export function CostSettingsCard({ viewOnly }: { viewOnly: boolean }) {
  const { t } = useTranslation('finance');
  const utils = trpc.useUtils();
  const query = trpc.finance.costSettings.get.useQuery();
  const [draft, setDraft] = useState<SettingsDraft | null>(null);
  const errors = useFormErrors(t('common.connection'));
  useEffect(() => {
    if (query.data) setDraft(draftOf(query.data));
  }, [query.data]);
  const save = trpc.finance.costSettings.update.useMutation({
    onSuccess: async () => {
      toast({ title: t('settings.saved'), variant: 'success' });
      await Promise.all([utils.finance.costSettings.get.invalidate(), utils.finance.statement.invalidate()]);
    },
    onError: (error) => errors.showServerError(error),
  });

  if (query.isError) return <DataError error={query.error} onRetry={() => void query.refetch()} />;
  const set = (field: keyof SettingsDraft, serverField: string) => (value: string) => {
    setDraft((current) => (current ? { ...current, [field]: value } : current));
    errors.clear(serverField);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!draft) return;
    const defaultCogs = draft.defaultCogs.trim() === '' ? null : Number(draft.defaultCogs.replace(',', '.'));
    const checked = costSettingsSchema.safeParse({
      paymentFeePercentBasisPoints: percentToBasisPoints(draft.feePercent),
      paymentFeeFixedMinor: inputToMinor(draft.fixedFee) ?? 0,
      shippingCostPerOrderMinor: inputToMinor(draft.shipping) ?? 0,
      defaultCogsPercent: defaultCogs,
    });
    const local: Record<string, string> = {};
    if (!checked.success) for (const issue of checked.error.issues) local[String(issue.path[0])] ??= t(`settings.errors.${String(issue.path[0])}`);
    if (!errors.acceptLocalCheck(local) || !checked.success) return;
    save.mutate(checked.data);
  };

  return (
    <SectionCard titleId="pnl-settings-title" title={t('settings.title')} description={t('settings.description', { currency: query.data?.currency ?? '' })} headingLevel={3} testId="pnl-settings">
      {!draft ? (
        <div className="skeleton h-48 rounded-box" role="status" aria-label={t('settings.loading')} />
      ) : (
        <form className="space-y-3" onSubmit={submit} noValidate>
          <FormAlert message={errors.formError} />
          <fieldset disabled={viewOnly} className="grid gap-3 sm:grid-cols-2">
            <TextField id="fee-percent" label={t('settings.feePercent')} value={draft.feePercent} onValueChange={set('feePercent', 'paymentFeePercentBasisPoints')} error={errors.fieldErrors.paymentFeePercentBasisPoints} inputMode="decimal" />
            <TextField id="fee-fixed" label={t('settings.fixedFee')} value={draft.fixedFee} onValueChange={set('fixedFee', 'paymentFeeFixedMinor')} error={errors.fieldErrors.paymentFeeFixedMinor} inputMode="decimal" />
            <TextField id="shipping-cost" label={t('settings.shipping')} value={draft.shipping} onValueChange={set('shipping', 'shippingCostPerOrderMinor')} error={errors.fieldErrors.shippingCostPerOrderMinor} inputMode="decimal" />
            <TextField id="default-cogs" label={t('settings.defaultCogs')} value={draft.defaultCogs} onValueChange={set('defaultCogs', 'defaultCogsPercent')} error={errors.fieldErrors.defaultCogsPercent} hint={t('settings.defaultCogsHint')} inputMode="decimal" />
          </fieldset>
          {!viewOnly && <SubmitButton pending={save.isPending} label={t('settings.save')} pendingLabel={t('settings.saving')} />}
        </form>
      )}
    </SectionCard>
  );
}
