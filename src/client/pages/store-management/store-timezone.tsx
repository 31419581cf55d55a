import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { CircleAlertIcon, XIcon } from 'lucide-react';
import type { Store, TimezoneChange } from '../../../shared/stores.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { toast } from '../../components/toast.tsx';
import { currentLanguage } from '../../lib/i18n.ts';
import { trpc } from '../../lib/trpc.ts';
import { showStoreError } from './store-toasts.tsx';
import { filterTimeZones, timeZoneOptions, utcOffset } from './time-zones.ts';

/** How often a queued or running change is asked about. */
const PROGRESS_POLL_MS = 1_000;

function isActive(change: TimezoneChange | null | undefined): boolean {
  return change?.status === 'queued' || change?.status === 'running';
}

/** "America/New_York (UTC−05:00)" in the reader's language. */
export function useZoneLabel() {
  const { t } = useTranslation('account');
  return (zone: string, offset: string = utcOffset(zone, new Date())) => t('stores.timezone.option', { zone, offset });
}

/**
 * The latest change of the store's zone, polled while it is queued or running. When one this page
 * saw (queued, running, or just asked for with `expect`) ends, a toast says so; success refreshes
 * every figure of the app (the days moved), failure is kept to be shown in the row.
 */
export function useTimezoneChange(store: Store) {
  const { t } = useTranslation('account');
  const utils = trpc.useUtils();
  const query = trpc.stores.timezoneChange.useQuery(
    { storeId: store.id },
    { enabled: store.role === 'owner', refetchInterval: (current) => (isActive(current.state.data?.change) ? PROGRESS_POLL_MS : false) },
  );
  const change = query.data?.change ?? null;
  // Changes with an id above this one, once finished, are announced (set by `expect`).
  const expectedAfter = useRef<number | null>(null);
  const watched = useRef<number | null>(null);
  const [failure, setFailure] = useState<TimezoneChange | null>(null);

  useEffect(() => {
    if (!change) return;
    if (isActive(change)) {
      watched.current = change.id;
      return;
    }
    const announce = watched.current === change.id || (expectedAfter.current !== null && change.id > expectedAfter.current);
    if (!announce) return;
    watched.current = null;
    expectedAfter.current = null;
    if (change.status === 'succeeded') {
      setFailure(null);
      toast({ title: t('stores.timezone.changed.title'), description: t('stores.timezone.changed.description', { name: store.name, zone: change.toTimezone }), variant: 'success' });
      // Every day of the store's figures may have moved.
      void utils.invalidate();
    } else {
      setFailure(change);
      toast({
        title: t('stores.timezone.failed.title'),
        description: t('stores.timezone.failed.description', { name: store.name, zone: change.toTimezone, message: change.error ?? '' }),
        variant: 'destructive',
      });
    }
  }, [change, store.name, t, utils]);

  return {
    change,
    running: isActive(change),
    failure,
    dismissFailure: () => setFailure(null),
    /** After asking for a change: announce the next one that finishes, and look for it now. */
    expect: async () => {
      expectedAfter.current = change?.id ?? 0;
      await utils.stores.timezoneChange.invalidate({ storeId: store.id });
    },
  };
}

interface TimezoneEditorProps {
  store: Store;
  onClose: () => void;
  /** A rebuild was queued (the store had data): its progress is to be followed. */
  onQueued: () => Promise<void>;
}

/** A searchable list of zones with their offsets, Save, then a confirmation saying what will happen. */
export function TimezoneEditor({ store, onClose, onQueued }: TimezoneEditorProps) {
  const { t } = useTranslation('account');
  const zoneLabel = useZoneLabel();
  const utils = trpc.useUtils();
  const searchId = useId();
  const selectId = useId();
  const options = useMemo(() => timeZoneOptions(new Date()), []);
  const [query, setQuery] = useState('');
  const [zone, setZone] = useState(store.timezone);
  const [confirming, setConfirming] = useState(false);
  const shown = filterTimeZones(options, query);
  const zoneShown = shown.some((option) => option.zone === zone);

  const update = trpc.stores.update.useMutation({
    onSuccess: async (updated) => {
      setConfirming(false);
      utils.stores.list.setData(undefined, (stores) => stores?.map((candidate) => (candidate.id === updated.id ? updated : candidate)));
      utils.stores.active.setData(undefined, (active) => (active?.store?.id === updated.id ? { store: updated } : active));
      onClose();
      if (updated.timezone === zone) {
        // A store without data takes its zone at once: nothing to recompute.
        toast({ title: t('stores.timezone.changed.title'), description: t('stores.timezone.changed.description', { name: updated.name, zone }), variant: 'success' });
        await utils.invalidate();
      } else {
        await onQueued();
      }
    },
    onError: (error) => {
      setConfirming(false);
      showStoreError(t, 'update', error);
    },
  });

  function search(text: string) {
    setQuery(text);
    const matches = filterTimeZones(options, text);
    if (matches.length > 0 && !matches.some((option) => option.zone === zone)) setZone(matches[0]!.zone);
  }

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!zoneShown) return;
    if (zone === store.timezone) onClose();
    else setConfirming(true);
  }

  return (
    <>
      <form className="bg-base-200/60 rounded-box mt-3 space-y-3 p-3 sm:p-4" onSubmit={save} noValidate data-testid="timezone-editor">
        <p className="text-base-content/70 text-sm">{t('stores.timezone.hint')}</p>
        <div className="grid gap-3 sm:grid-cols-2">
          <div className="fieldset py-0">
            <label htmlFor={searchId} className="fieldset-legend pt-0 pb-1 text-sm">
              {t('stores.timezone.search')}
            </label>
            <input
              id={searchId}
              type="search"
              className="input input-sm w-full"
              placeholder={t('stores.timezone.searchPlaceholder')}
              value={query}
              onChange={(event) => search(event.target.value)}
              autoComplete="off"
              autoFocus
            />
          </div>
          <div className="fieldset py-0">
            <label htmlFor={selectId} className="fieldset-legend pt-0 pb-1 text-sm">
              {t('stores.timezone.label')}
            </label>
            <select id={selectId} className="select select-sm w-full" value={zoneShown ? zone : ''} onChange={(event) => setZone(event.target.value)} disabled={shown.length === 0}>
              {shown.length === 0 && <option value="">{t('stores.timezone.noMatch', { query: query.trim() })}</option>}
              {shown.map((option) => (
                <option key={option.zone} value={option.zone}>
                  {zoneLabel(option.zone, option.offset)}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div className="flex flex-wrap justify-end gap-2">
          <button type="button" className="btn btn-ghost btn-sm" onClick={onClose} disabled={update.isPending}>
            {t('stores.timezone.cancel')}
          </button>
          <button type="submit" className="btn btn-primary btn-sm" disabled={!zoneShown || update.isPending}>
            {update.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
            {t('stores.timezone.save')}
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title={t('stores.timezone.confirm.title', { name: store.name })}
        body={<p data-testid="timezone-confirmation">{t('stores.timezone.confirm.body', { zone })}</p>}
        confirmLabel={t('stores.timezone.confirm.submit')}
        cancelLabel={t('stores.timezone.cancel')}
        tone="primary"
        pending={update.isPending}
        onConfirm={() => update.mutate({ storeId: store.id, timezone: zone })}
        onClose={() => {
          if (!update.isPending) setConfirming(false);
        }}
      />
    </>
  );
}

/** The rebuild of a queued or running change: a bar with the rows done of the total. */
export function TimezoneProgress({ change }: { change: TimezoneChange }) {
  const { t } = useTranslation('account');
  const number = new Intl.NumberFormat(currentLanguage());
  const total = change.rowsTotal;
  const percent = change.status === 'running' && total !== null ? (total === 0 ? 100 : Math.floor((change.rowsDone / total) * 100)) : null;
  const label =
    change.status === 'queued'
      ? t('stores.timezone.progress.queued', { zone: change.toTimezone })
      : total !== null && change.rowsDone >= total
        ? t('stores.timezone.progress.finishing', { zone: change.toTimezone })
        : t('stores.timezone.progress.running', { zone: change.toTimezone });
  return (
    <div className="mt-3 space-y-1.5" data-testid="timezone-progress" role="status">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5 text-xs">
        <span className="font-medium">{label}</span>
        {total !== null && (
          <span className="text-base-content/70 tabular-nums" data-testid="timezone-progress-rows">
            {t('stores.timezone.progress.rows', { done: number.format(change.rowsDone), total: number.format(total), percent: percent ?? 0 })}
          </span>
        )}
      </div>
      {/* Without a total the bar has no value: daisyUI animates it as indeterminate. */}
      <progress className="progress progress-primary w-full" value={percent ?? undefined} max={100} aria-label={label} />
    </div>
  );
}

export function TimezoneFailure({ change, onDismiss }: { change: TimezoneChange; onDismiss: () => void }) {
  const { t } = useTranslation('account');
  return (
    <div role="alert" className="alert alert-error alert-soft mt-3 items-start py-2.5 text-sm" data-testid="timezone-failure">
      <CircleAlertIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <span className="min-w-0 break-words">{t('stores.timezone.failed.inline', { zone: change.toTimezone, message: change.error ?? '' })}</span>
      <button type="button" className="btn btn-ghost btn-xs btn-square" onClick={onDismiss} aria-label={t('stores.timezone.dismiss')} title={t('stores.timezone.dismiss')}>
        <XIcon />
      </button>
    </div>
  );
}
