import { PencilIcon, PlusIcon, ReceiptIcon, TrashIcon } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { EXPENSE_RECURRENCES } from '../../../shared/commerce-constants.ts';
import { CURRENCY_CODES } from '../../../shared/currencies.ts';
import { createExpenseInput, type Expense } from '../../../shared/finance.ts';
import { ConfirmDialog, useConfirmation } from '../../components/confirm-dialog.tsx';
import { DataError } from '../../components/data-page.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextField } from '../../components/form-fields.tsx';
import { FormAlert, SubmitButton, useFormErrors } from '../../components/form-state.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { useCurrency } from '../../lib/currency.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatStatementMoney, inputToMinor, minorToInput } from './pnl-format.ts';

type Draft = { id: number | null; name: string; category: string; amount: string; currency: string; recurrence: Expense['recurrence']; startsOn: string; endsOn: string };

function draftOf(expense: Expense | null, currency: string, today: string): Draft {
  if (!expense) return { id: null, name: '', category: '', amount: '', currency, recurrence: 'monthly', startsOn: `${today.slice(0, 7)}-01`, endsOn: '' };
  return { id: expense.id, name: expense.name, category: expense.category, amount: minorToInput(expense.amountMinor), currency: expense.currency, recurrence: expense.recurrence, startsOn: expense.startsOn, endsOn: expense.endsOn ?? '' };
}

/** Custom costs (rent, software, salaries...): monthly or one-off, listed with add / edit / delete. */
export function ExpensesCard({ viewOnly }: { viewOnly: boolean }) {
  const { t, i18n } = useTranslation('finance');
  const locale = i18n.resolvedLanguage ?? 'en';
  const { currency } = useCurrency();
  const utils = trpc.useUtils();
  const query = trpc.finance.expenses.list.useQuery();
  const [editing, setEditing] = useState<Draft | null>(null);
  const deleting = useConfirmation<Expense>();
  const remove = trpc.finance.expenses.remove.useMutation({
    onSuccess: async () => {
      deleting.close();
      toast({ title: t('expenses.deleted'), variant: 'success' });
      await Promise.all([utils.finance.expenses.list.invalidate(), utils.finance.statement.invalidate()]);
    },
    onError: (error) => toast({ title: t('expenses.deleteFailed'), description: serverMessage(error) ?? t('common.connection'), variant: 'destructive' }),
  });
  const today = new Date().toISOString().slice(0, 10);
  const dateLabel = (day: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

  return (
    <SectionCard
      titleId="pnl-expenses-title"
      title={t('expenses.title')}
      description={t('expenses.description')}
      headingLevel={3}
      testId="pnl-expenses"
      actions={
        !viewOnly && (
          <button type="button" className="btn btn-sm btn-primary gap-1" onClick={() => setEditing(draftOf(null, currency, today))} data-testid="add-expense">
            <PlusIcon aria-hidden="true" className="size-4" />
            {t('expenses.add')}
          </button>
        )
      }
    >
      {query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : !query.data ? (
        <div className="skeleton h-32 rounded-box" role="status" aria-label={t('expenses.loading')} />
      ) : query.data.length === 0 ? (
        <div className="text-base-content/70 flex flex-col items-center gap-2 py-8 text-center text-sm">
          <ReceiptIcon aria-hidden="true" className="size-8 opacity-50" />
          {t('expenses.empty')}
        </div>
      ) : (
        <ul className="divide-base-content/10 divide-y">
          {query.data.map((expense) => (
            <li key={expense.id} className="flex items-center gap-3 py-2" data-testid="expense-row">
              <div className="min-w-0 flex-1">
                <p className="truncate font-medium">{expense.name}</p>
                <p className="text-base-content/70 truncate text-xs">
                  {expense.category} · {t(`expenses.recurrence.${expense.recurrence}`)} ·{' '}
                  {expense.recurrence === 'one_off'
                    ? dateLabel(expense.startsOn)
                    : expense.endsOn
                      ? t('expenses.between', { from: dateLabel(expense.startsOn), to: dateLabel(expense.endsOn) })
                      : t('expenses.since', { from: dateLabel(expense.startsOn) })}
                </p>
              </div>
              <span className="font-semibold tabular-nums">{formatStatementMoney(expense.amountMinor, expense.currency, locale)}</span>
              {!viewOnly && (
                <div className="flex gap-1">
                  <button type="button" className="btn btn-ghost btn-xs btn-square" aria-label={t('expenses.edit', { name: expense.name })} onClick={() => setEditing(draftOf(expense, currency, today))}>
                    <PencilIcon aria-hidden="true" className="size-4" />
                  </button>
                  <button
                    type="button"
                    className="btn btn-ghost btn-xs btn-square text-error"
                    aria-label={t('expenses.delete', { name: expense.name })}
                    onClick={() => deleting.ask(expense)}
                  >
                    <TrashIcon aria-hidden="true" className="size-4" />
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <ExpenseDialog draft={editing} onClose={() => setEditing(null)} />
      <ConfirmDialog
        open={deleting.open}
        title={t('expenses.confirmDelete', { name: deleting.target?.name ?? '' })}
        body={t('expenses.confirmDeleteBody')}
        confirmLabel={t('expenses.confirmDeleteAction')}
        cancelLabel={t('expenses.form.cancel')}
        pending={remove.isPending}
        onConfirm={() => deleting.target && remove.mutate({ id: deleting.target.id })}
        onClose={deleting.close}
      />
    </SectionCard>
  );
}

/** The add / edit form in a daisyUI modal; the shared zod schema checks it before it is sent. */
function ExpenseDialog({ draft, onClose }: { draft: Draft | null; onClose: () => void }) {
  const { t } = useTranslation('finance');
  const utils = trpc.useUtils();
  const [form, setForm] = useState<Draft | null>(draft);
  const errors = useFormErrors(t('common.connection'));
  useEffect(() => {
    setForm(draft);
    errors.acceptLocalCheck({});
  }, [draft]);
  const onSaved = async () => {
    toast({ title: draft?.id ? t('expenses.updated') : t('expenses.created'), variant: 'success' });
    await Promise.all([utils.finance.expenses.list.invalidate(), utils.finance.statement.invalidate()]);
    onClose();
  };
  const create = trpc.finance.expenses.create.useMutation({ onSuccess: onSaved, onError: (error) => errors.showServerError(error) });
  const update = trpc.finance.expenses.update.useMutation({ onSuccess: onSaved, onError: (error) => errors.showServerError(error) });
  const pending = create.isPending || update.isPending;

  const set = (field: keyof Draft) => (value: string) => {
    setForm((current) => (current ? { ...current, [field]: value } : current));
    errors.clear(field === 'amount' ? 'amountMinor' : field);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!form) return;
    const amountMinor = inputToMinor(form.amount);
    const input = { name: form.name, category: form.category, amountMinor: amountMinor ?? Number.NaN, currency: form.currency, recurrence: form.recurrence, startsOn: form.startsOn, endsOn: form.recurrence === 'monthly' && form.endsOn ? form.endsOn : null };
    const checked = createExpenseInput.safeParse(input);
    const local: Record<string, string> = {};
    if (!checked.success) for (const issue of checked.error.issues) local[String(issue.path[0])] ??= t(`expenses.form.errors.${String(issue.path[0])}`);
    if (!errors.acceptLocalCheck(local) || !checked.success) return;
    if (form.id === null) create.mutate(checked.data);
    else update.mutate({ id: form.id, ...checked.data });
  };

  return (
    <Modal open={draft !== null} titleId="expense-dialog-title" onClose={onClose} busy={pending}>
      <h2 id="expense-dialog-title" className="text-lg font-semibold">
        {draft?.id ? t('expenses.form.editTitle') : t('expenses.form.addTitle')}
      </h2>
      {form && (
        <form className="mt-4 space-y-3" onSubmit={submit} noValidate data-testid="expense-form">
          <FormAlert message={errors.formError} />
          <TextField id="expense-name" label={t('expenses.form.name')} value={form.name} onValueChange={set('name')} error={errors.fieldErrors.name} maxLength={120} required />
          <TextField id="expense-category" label={t('expenses.form.category')} value={form.category} onValueChange={set('category')} error={errors.fieldErrors.category} hint={t('expenses.form.categoryHint')} maxLength={64} required />
          <div className="grid grid-cols-[1fr_auto] gap-3">
            <TextField id="expense-amount" label={t('expenses.form.amount')} value={form.amount} onValueChange={set('amount')} error={errors.fieldErrors.amountMinor} inputMode="decimal" required />
            <div className="fieldset py-0">
              <label htmlFor="expense-currency" className="fieldset-legend pt-0 pb-1 text-sm">
                {t('expenses.form.currency')}
              </label>
              <select id="expense-currency" className="select" value={form.currency} onChange={(event) => set('currency')(event.target.value)}>
                {CURRENCY_CODES.map((code) => (
                  <option key={code}>{code}</option>
                ))}
              </select>
            </div>
          </div>
          <fieldset className="fieldset py-0">
            <legend className="fieldset-legend pt-0 pb-1 text-sm">{t('expenses.form.recurrence')}</legend>
            <div className="flex gap-4">
              {EXPENSE_RECURRENCES.map((recurrence) => (
                <label key={recurrence} className="label cursor-pointer gap-2">
                  <input type="radio" className="radio radio-sm radio-primary" name="expense-recurrence" checked={form.recurrence === recurrence} onChange={() => set('recurrence')(recurrence)} />
                  {t(`expenses.recurrence.${recurrence}`)}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="grid gap-3 sm:grid-cols-2">
            <TextField id="expense-starts" type="date" label={form.recurrence === 'one_off' ? t('expenses.form.date') : t('expenses.form.startsOn')} value={form.startsOn} onValueChange={set('startsOn')} error={errors.fieldErrors.startsOn} required />
            {form.recurrence === 'monthly' && (
              <TextField id="expense-ends" type="date" label={t('expenses.form.endsOn')} value={form.endsOn} onValueChange={set('endsOn')} error={errors.fieldErrors.endsOn} hint={t('expenses.form.endsOnHint')} />
            )}
          </div>
          <div className="modal-action">
            <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>
              {t('expenses.form.cancel')}
            </button>
            <SubmitButton pending={pending} label={t('expenses.form.save')} pendingLabel={t('expenses.form.saving')} className="" />
          </div>
        </form>
      )}
    </Modal>
  );
}
