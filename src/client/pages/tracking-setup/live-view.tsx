import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import type { droppedEventsOutput, recentEventsOutput, TrackingHealth } from '../../../shared/tracking.ts';
import { SectionCard } from '../../components/section-card.tsx';

type RecentEvent = z.infer<typeof recentEventsOutput>[number];
type Drop = z.infer<typeof droppedEventsOutput>[number];

function dateTime(iso: string, language: string, withDate: boolean): string {
  return new Intl.DateTimeFormat(language, withDate ? { dateStyle: 'medium', timeStyle: 'medium' } : { timeStyle: 'medium' }).format(new Date(iso));
}

/** Dropped events of the last 30 days by reason, most first. */
export function dropsByReason(drops: readonly Drop[]): { reason: string; count: number }[] {
  const totals = new Map<string, number>();
  for (const drop of drops) totals.set(drop.reason, (totals.get(drop.reason) ?? 0) + drop.count);
  return [...totals].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/** One figure of the health card: label, value ("—" when there is none), and what it means. */
function StatTile({ label, value, hint, testId }: { label: string; value: string | null; hint: string; testId: string }) {
  return (
    <article className="bg-base-100 border-base-content/10 rounded-box flex min-w-0 flex-col border p-4 shadow-xs" aria-label={label} data-testid={testId}>
      <h3 className="text-base-content/80 text-sm leading-snug font-semibold">{label}</h3>
      <p className="mt-2 text-xl font-semibold tracking-tight break-words tabular-nums" data-testid="kpi-value">
        {value ?? <span className="text-base-content/45">—</span>}
      </p>
      <p className="text-base-content/70 mt-1 text-xs leading-snug break-words">{hint}</p>
    </article>
  );
}

/** Events in 24 h, purchases matched to orders, the last event, and dropped events by reason. */
export function HealthCard({ health, drops }: { health: TrackingHealth; drops: readonly Drop[] }) {
  const { t, i18n } = useTranslation('tracking-setup');
  const number = new Intl.NumberFormat(i18n.language);
  const reasons = dropsByReason(drops);
  return (
    <SectionCard titleId="tracking-health" title={t('health.title')} description={t('health.description')} testId="tracking-health">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <StatTile testId="health-events" label={t('health.events24h')} value={number.format(health.eventsLast24h)} hint={t('health.events24hHint')} />
        <StatTile
          testId="health-matched"
          label={t('health.matched')}
          value={health.matchedPercent === null ? null : `${new Intl.NumberFormat(i18n.language, { maximumFractionDigits: 1 }).format(health.matchedPercent)} %`}
          hint={
            health.purchasesLast30d === 0
              ? t('health.matchedNone')
              : t('health.matchedHint', { matched: number.format(health.purchasesMatched), purchases: number.format(health.purchasesLast30d), tracked: number.format(health.ordersTracked), orders: number.format(health.ordersLast30d) })
          }
        />
        <StatTile testId="health-last-event" label={t('health.lastEvent')} value={health.lastEventAt ? dateTime(health.lastEventAt, i18n.language, true) : null} hint={health.lastEventAt ? t('health.lastEventHint') : t('health.lastEventNone')} />
      </div>
      <div data-testid="health-drops">
        <h3 className="mb-2 text-sm font-medium">{t('health.drops')}</h3>
        {reasons.length === 0 ? (
          <p className="text-base-content/70 text-sm">{t('health.dropsNone')}</p>
        ) : (
          <ul className="divide-base-content/10 divide-y text-sm">
            {reasons.map((row) => (
              <li key={row.reason} className="flex justify-between gap-3 py-1.5">
                <span className="min-w-0 font-mono text-xs break-all">{row.reason}</span>
                <span className="tabular-nums">{number.format(row.count)}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </SectionCard>
  );
}

/** An amount in minor units of its currency (2 digits for EUR, none for JPY). */
function money(valueMinor: number, currency: string, language: string): string {
  const format = new Intl.NumberFormat(language, { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(valueMinor / 10 ** digits);
}

function pathOf(url: string | null): string {
  if (!url) return '—';
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return url;
  }
}

/** The last 50 events, newest first; the page polls them while it is visible. */
export function LiveEvents({ events, updatedAt, actions }: { events: readonly RecentEvent[]; updatedAt: number; actions: ReactNode }) {
  const { t, i18n } = useTranslation('tracking-setup');
  return (
    <SectionCard
      titleId="tracking-live"
      title={
        <span className="flex items-center gap-2">
          {t('live.title')}
          <span className="badge badge-success badge-soft badge-sm gap-1.5">
            <span className="bg-success size-1.5 animate-pulse rounded-full" aria-hidden="true" />
            {t('live.badge')}
          </span>
        </span>
      }
      description={t('live.description')}
      actions={actions}
      testId="tracking-live"
    >
      {events.length === 0 ? (
        <p className="text-base-content/70 text-sm" data-testid="live-empty">
          {t('live.empty')}
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="table-sm table" data-testid="live-table" aria-describedby="tracking-live-updated">
            <thead>
              <tr>
                <th scope="col">{t('live.time')}</th>
                <th scope="col">{t('live.event')}</th>
                <th scope="col">{t('live.source')}</th>
                <th scope="col">{t('live.page')}</th>
                <th scope="col" className="text-right">
                  {t('live.value')}
                </th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr key={`${event.occurredAt}|${event.eventId}`} data-testid="live-row" data-event-id={event.eventId}>
                  <td className="whitespace-nowrap tabular-nums">{dateTime(event.occurredAt, i18n.language, false)}</td>
                  <td className="whitespace-nowrap">
                    <span className="font-mono text-xs">{event.name}</span>
                    {event.orderId && <span className="text-base-content/70 ml-1 text-xs">#{event.orderId}</span>}
                  </td>
                  <td>
                    <span className={`badge badge-sm ${event.source === 'test' ? 'badge-warning' : event.source === 'server' ? 'badge-info' : 'badge-ghost'} badge-soft`}>
                      {t(`live.sources.${event.source}`, { defaultValue: event.source })}
                    </span>
                  </td>
                  <td className="max-w-64 truncate text-xs" title={event.url ?? undefined}>
                    {pathOf(event.url)}
                  </td>
                  <td className="text-right whitespace-nowrap tabular-nums">{event.valueMinor !== null && event.currency ? money(event.valueMinor, event.currency, i18n.language) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p id="tracking-live-updated" className="text-base-content/60 text-xs">
        {t('live.updated', { time: dateTime(new Date(updatedAt).toISOString(), i18n.language, false) })}
      </p>
    </SectionCard>
  );
}
