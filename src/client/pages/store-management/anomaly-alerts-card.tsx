import { BellIcon } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ANOMALY_LANGUAGES, type AnomalyLanguage } from '../../../shared/anomaly-figures.ts';
import type { Store } from '../../../shared/stores.ts';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

/**
 * The active store's e-mail alert for high-severity anomalies (README, "Anomaly insights: e-mail
 * alerts"): off by default; the owner switches it on, and the alerts are written in the language
 * they use at that moment.
 */
export function AnomalyAlertsCard({ store }: { store: Store }) {
  const { t, i18n } = useTranslation('dashboard');
  const utils = trpc.useUtils();
  const settings = trpc.anomalies.alertSettings.useQuery(undefined, { enabled: store.role === 'owner' });
  const save = trpc.anomalies.setAlertSettings.useMutation({
    onSuccess: (saved) => {
      utils.anomalies.alertSettings.setData(undefined, saved);
      toast({ title: t('anomalies.alerts.saved'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('anomalies.alerts.failed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });
  // The switch shows what the user chose until the cache holds it: React state, set in the change
  // handler, renders in the same event, whereas the query cache tells its observers a task later
  // (TanStack Query's notifyManager), by which time React has put the controlled input back to the
  // old value once (CI saw Playwright's check() find the switch unchanged). Put back if saving fails.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const stored = settings.data?.emailAlerts;
  useEffect(() => {
    if (chosen !== null && stored === chosen) setChosen(null);
  }, [chosen, stored]);
  if (store.role !== 'owner') return null;
  const base = (i18n.resolvedLanguage ?? 'en').split('-')[0] as AnomalyLanguage;
  const language: AnomalyLanguage = ANOMALY_LANGUAGES.includes(base) ? base : 'en';
  const checked = chosen ?? stored ?? false;
  const change = (emailAlerts: boolean) => {
    setChosen(emailAlerts);
    save.mutate({ emailAlerts, language }, { onError: () => setChosen(null) });
  };
  return (
    <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="anomaly-alerts-title" data-testid="anomaly-alerts-card">
      <div className="card-body gap-2 p-4 sm:p-6">
        <h2 id="anomaly-alerts-title" className="flex items-center gap-2 font-semibold">
          <BellIcon className="text-primary size-4" aria-hidden="true" />
          {t('anomalies.alerts.title')} <span className="text-base-content/70 font-normal">· {store.name}</span>
        </h2>
        <div className="flex items-start justify-between gap-4">
          <div className="min-w-0">
            <label htmlFor="anomaly-email-alerts" className="font-medium">
              {t('anomalies.alerts.label')}
            </label>
            <p id="anomaly-email-alerts-hint" className="text-base-content/70 text-sm">
              {t('anomalies.alerts.description')}
            </p>
          </div>
          <input
            id="anomaly-email-alerts"
            type="checkbox"
            role="switch"
            className="toggle toggle-primary shrink-0"
            checked={checked}
            disabled={settings.isPending || save.isPending}
            aria-describedby="anomaly-email-alerts-hint"
            aria-busy={save.isPending}
            onChange={(event) => change(event.target.checked)}
          />
        </div>
      </div>
    </section>
  );
}
