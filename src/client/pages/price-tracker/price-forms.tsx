import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_ALERT_THRESHOLD_PERCENT, MAX_BULK_URLS, parsePriceText, type OwnProductInput } from '../../../shared/price-tracker.ts';
import { TextAreaField, TextField } from '../../components/form-fields.tsx';
import { FormAlert } from '../../components/form-state.tsx';
import { Modal } from '../../components/modal.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

// The add form, the bulk add dialog and the settings editor of the price tracker. The server checks
// every value again (shared zod schemas); its messages show beside the form.

interface OwnChoice {
  productId: string;
  name: string;
  price: string;
}

/** A price typed by the user ("49.90", "1.299,00", "1 299,50"), in minor units; null when it is not one. */
export function minorOfTyped(text: string): number | null {
  const trimmed = text.trim();
  return /^\d[\d.,'\s]*$/.test(trimmed) ? parsePriceText(trimmed) : null;
}

/** The alert threshold typed in ("5", "7,5"): a percentage from 0 to 100, else null. */
function percentOfTyped(text: string): number | null {
  const value = Number(text.trim().replace(',', '.'));
  return text.trim() !== '' && Number.isFinite(value) && value >= 0 && value <= 100 ? value : null;
}

function OwnProductFields({ value, onChange, disabled }: { value: OwnChoice; onChange: (value: OwnChoice) => void; disabled: boolean }) {
  const { t } = useTranslation('price-tracker');
  const id = useId();
  const products = trpc.priceTracker.products.useQuery();
  const items = products.data?.items ?? [];
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      {items.length > 0 && (
        <label className="flex flex-col gap-1 sm:col-span-2" htmlFor={`${id}-product`}>
          <span className="text-sm font-medium">{t('form.ownProduct')}</span>
          <select id={`${id}-product`} className="select w-full" value={value.productId} disabled={disabled} onChange={(event) => onChange({ ...value, productId: event.target.value })}>
            <option value="">{t('form.manualProduct')}</option>
            {items.map((item) => (
              <option key={item.id} value={String(item.id)}>
                {item.title}
              </option>
            ))}
          </select>
        </label>
      )}
      {value.productId === '' && (
        <>
          <TextField id={`${id}-name`} label={t('form.ownName')} value={value.name} onValueChange={(name) => onChange({ ...value, name })} disabled={disabled} required maxLength={200} />
          <TextField id={`${id}-price`} label={t('form.ownPrice')} value={value.price} onValueChange={(price) => onChange({ ...value, price })} disabled={disabled} inputMode="decimal" required placeholder="49.90" />
        </>
      )}
    </div>
  );
}

function ownInput(choice: OwnChoice): OwnProductInput | null {
  if (choice.productId !== '') return { productId: Number(choice.productId) };
  const priceMinor = minorOfTyped(choice.price);
  if (priceMinor === null || choice.name.trim() === '') return null;
  return { name: choice.name.trim(), priceMinor };
}

const EMPTY_OWN: OwnChoice = { productId: '', name: '', price: '' };

export function AddCompetitorForm({ disabled }: { disabled: boolean }) {
  const { t } = useTranslation('price-tracker');
  const id = useId();
  const utils = trpc.useUtils();
  const [url, setUrl] = useState('');
  const [own, setOwn] = useState<OwnChoice>(EMPTY_OWN);
  const [selector, setSelector] = useState('');
  const [threshold, setThreshold] = useState(String(DEFAULT_ALERT_THRESHOLD_PERCENT));
  const [emailAlerts, setEmailAlerts] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const add = trpc.priceTracker.add.useMutation({
    onSuccess: (row) => {
      void utils.priceTracker.invalidate();
      setUrl('');
      setError(null);
      toast({ title: row.status === 'ok' ? t('form.added') : t('form.addedWithError'), variant: row.status === 'ok' ? 'success' : 'default' });
    },
    onError: (failure) => setError(serverMessage(failure) ?? t('form.failed')),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const ownProduct = ownInput(own);
    if (!ownProduct) return setError(t('form.ownMissing'));
    const thresholdPercent = percentOfTyped(threshold);
    if (thresholdPercent === null) return setError(t('form.thresholdInvalid'));
    add.mutate({ url: url.trim(), own: ownProduct, cssSelector: selector.trim() || null, alertThresholdPercent: thresholdPercent, emailAlerts });
  };
  return (
    <form className="space-y-3" onSubmit={submit} data-testid="add-competitor-form" noValidate>
      <TextField id={`${id}-url`} label={t('form.url')} value={url} onValueChange={setUrl} disabled={disabled || add.isPending} type="url" required placeholder="https://shop.example/product" />
      <OwnProductFields value={own} onChange={setOwn} disabled={disabled || add.isPending} />
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField id={`${id}-selector`} label={t('form.selector')} hint={t('form.selectorHint')} value={selector} onValueChange={setSelector} disabled={disabled || add.isPending} placeholder=".price" />
        <TextField id={`${id}-threshold`} label={t('form.threshold')} value={threshold} onValueChange={setThreshold} disabled={disabled || add.isPending} inputMode="decimal" />
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" className="checkbox checkbox-sm" checked={emailAlerts} onChange={(event) => setEmailAlerts(event.target.checked)} disabled={disabled || add.isPending} />
        {t('form.emailAlerts')}
      </label>
      <FormAlert message={error} />
      <button type="submit" className="btn btn-primary w-full sm:w-auto" disabled={disabled || add.isPending} aria-busy={add.isPending}>
        {add.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
        {add.isPending ? t('form.checking') : t('form.add')}
      </button>
    </form>
  );
}

export function BulkAddDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('price-tracker');
  const titleId = useId();
  const utils = trpc.useUtils();
  const [text, setText] = useState('');
  const [own, setOwn] = useState<OwnChoice>(EMPTY_OWN);
  const [error, setError] = useState<string | null>(null);
  const bulk = trpc.priceTracker.bulkAdd.useMutation({
    onSuccess: () => void utils.priceTracker.invalidate(),
    onError: (failure) => setError(serverMessage(failure) ?? t('form.failed')),
  });
  const urls = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const ownProduct = ownInput(own);
    if (!ownProduct) return setError(t('form.ownMissing'));
    if (urls.length === 0) return setError(t('bulk.none'));
    if (urls.length > MAX_BULK_URLS) return setError(t('bulk.tooMany', { max: MAX_BULK_URLS }));
    setError(null);
    bulk.mutate({ urls, own: ownProduct });
  };
  const close = () => {
    bulk.reset();
    setError(null);
    onClose();
  };
  return (
    <Modal open={open} titleId={titleId} onClose={close} busy={bulk.isPending} boxClassName="max-w-2xl" testId="bulk-add-dialog">
      <h2 id={titleId} className="text-lg font-semibold">
        {t('bulk.title')}
      </h2>
      <form className="mt-3 space-y-3" onSubmit={submit} noValidate>
        <TextAreaField id={`${titleId}-urls`} label={t('bulk.urls')} hint={t('bulk.hint', { max: MAX_BULK_URLS })} value={text} onValueChange={setText} rows={6} disabled={bulk.isPending} />
        <OwnProductFields value={own} onChange={setOwn} disabled={bulk.isPending} />
        <FormAlert message={error} />
        {bulk.data && (
          <ul className="space-y-1 text-sm" data-testid="bulk-results">
            {bulk.data.results.map((result, index) => (
              <li key={`${result.url}-${index}`} className="flex flex-wrap items-baseline gap-2">
                <span className={`badge badge-sm ${result.outcome === 'added' ? 'badge-success' : result.outcome === 'duplicate' ? 'badge-ghost' : 'badge-error'}`}>{t(`bulk.outcome.${result.outcome}`)}</span>
                <span className="min-w-0 break-all">{result.url}</span>
                {result.message && <span className="text-base-content/70 w-full break-words">{result.message}</span>}
              </li>
            ))}
          </ul>
        )}
        {bulk.data?.results.some((result) => result.outcome === 'added') && (
          <p className="text-base-content/70 text-sm" data-testid="bulk-checking-note">
            {t('bulk.checkingNote')}
          </p>
        )}
        <div className="modal-action">
          <button type="button" className="btn btn-ghost" onClick={close} disabled={bulk.isPending}>
            {t('bulk.close')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={bulk.isPending} aria-busy={bulk.isPending}>
            {bulk.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {t('bulk.submit', { count: urls.length })}
          </button>
        </div>
      </form>
    </Modal>
  );
}

export interface EditTarget {
  id: string;
  url: string;
  cssSelector: string | null;
  alertThresholdPercent: number;
  alertOutOfStock: boolean;
  emailAlerts: boolean;
}

export function EditCompetitorDialog({ target, onClose }: { target: EditTarget | null; onClose: () => void }) {
  const { t } = useTranslation('price-tracker');
  const titleId = useId();
  const utils = trpc.useUtils();
  const [selector, setSelector] = useState(target?.cssSelector ?? '');
  const [threshold, setThreshold] = useState(String(target?.alertThresholdPercent ?? DEFAULT_ALERT_THRESHOLD_PERCENT));
  const [outOfStock, setOutOfStock] = useState(target?.alertOutOfStock ?? true);
  const [emailAlerts, setEmailAlerts] = useState(target?.emailAlerts ?? false);
  const [error, setError] = useState<string | null>(null);
  const update = trpc.priceTracker.update.useMutation({
    onSuccess: () => {
      void utils.priceTracker.invalidate();
      toast({ title: t('edit.saved'), variant: 'success' });
      onClose();
    },
    onError: (failure) => setError(serverMessage(failure) ?? t('form.failed')),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!target) return;
    const thresholdPercent = percentOfTyped(threshold);
    if (thresholdPercent === null) return setError(t('form.thresholdInvalid'));
    update.mutate({ id: target.id, cssSelector: selector.trim() || null, alertThresholdPercent: thresholdPercent, alertOutOfStock: outOfStock, emailAlerts });
  };
  return (
    <Modal open={target !== null} titleId={titleId} onClose={onClose} busy={update.isPending} testId="edit-competitor-dialog">
      <h2 id={titleId} className="text-lg font-semibold">
        {t('edit.title')}
      </h2>
      <p className="text-base-content/70 mt-1 text-sm break-all">{target?.url}</p>
      <form className="mt-3 space-y-3" onSubmit={submit} noValidate>
        <TextField id={`${titleId}-selector`} label={t('form.selector')} hint={t('form.selectorHint')} value={selector} onValueChange={setSelector} disabled={update.isPending} placeholder=".price" />
        <TextField id={`${titleId}-threshold`} label={t('form.threshold')} value={threshold} onValueChange={setThreshold} disabled={update.isPending} inputMode="decimal" />
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" className="checkbox checkbox-sm" checked={outOfStock} onChange={(event) => setOutOfStock(event.target.checked)} disabled={update.isPending} />
          {t('form.outOfStockAlerts')}
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" className="checkbox checkbox-sm" checked={emailAlerts} onChange={(event) => setEmailAlerts(event.target.checked)} disabled={update.isPending} />
          {t('form.emailAlerts')}
        </label>
        <FormAlert message={error} />
        <div className="modal-action">
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={update.isPending}>
            {t('edit.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={update.isPending} aria-busy={update.isPending}>
            {t('edit.save')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
