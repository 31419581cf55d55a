import type { AnomalyMetric } from '../../../shared/anomalies.ts';
import { addDays, daysBetween } from '../../../shared/date-ranges.ts';
import { detectDay, newEpisodes, scopeKeyOf, storeContextOf, storeSeries, type PriorAlert, type StoreData } from './detect.ts';
import { BASELINE_DAYS, eventOffset, type Finding } from './engine.ts';

// The measured quality of the detection (bench/anomalies.ts and quality.test.ts): known anomalies
// injected into copies of a demo store's daily figures, detection run day by day as the job would
// (with the episode rule), recall of the injected anomalies and false alarms per store-month on the
// clean data (README, "Anomaly insights"; BENCHMARKS.md, "i18-anomalies").

export type InjectionKind = 'spend_spike' | 'tracking_outage' | 'refund_surge' | 'campaign_stops_converting';

export interface Injection {
  kind: InjectionKind;
  /** The scope whose alert counts as a detection, and the metrics that do. */
  scopeKey: string;
  metrics: AnomalyMetric[];
  days: string[];
  apply: (data: StoreData) => void;
}

/** A deep copy of a store's figures (maps of plain objects). */
export function copyStoreData(data: StoreData): StoreData {
  const days = <T extends object>(map: Map<string, T>) => new Map([...map].map(([day, figures]) => [day, { ...figures }]));
  return {
    storeName: data.storeName,
    store: days(data.store),
    channels: new Map([...data.channels].map(([channel, map]) => [channel, days(map)])),
    campaigns: new Map([...data.campaigns].map(([key, campaign]) => [key, { ...campaign, days: days(campaign.days) }])),
    pixelPurchases: data.pixelPurchases ? new Map(data.pixelPurchases) : null,
  };
}

/** Runs detection day by day from `from` to `to`; each day's new episodes become the next days' prior alerts. */
export function detectPeriod(data: StoreData, from: string, to: string, prior: PriorAlert[] = []): Finding[] {
  const scopes = storeSeries(data, storeContextOf(data, to));
  const alerts = [...prior];
  const found: Finding[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) {
    const fresh = newEpisodes(detectDay(data, day, scopes), alerts);
    for (const finding of fresh) alerts.push({ metric: finding.metric, scopeKey: scopeKeyOf(finding.scope), day, up: finding.value > finding.expected });
    found.push(...fresh);
  }
  return found;
}

/** The campaigns by their average daily spend over the period, largest first. */
function campaignsBySpend(data: StoreData, from: string, to: string) {
  return [...data.campaigns.entries()]
    .map(([key, campaign]) => {
      let spend = 0;
      let conversions = 0;
      for (const [day, figures] of campaign.days) if (day >= from && day <= to) (spend += figures.spendMinor), (conversions += figures.conversions);
      return { key, campaign, spend, conversions };
    })
    .sort((a, b) => b.spend - a.spend);
}

/**
 * The injections: `perKind` of each kind, spread over the evaluated period (never on Black Friday's
 * days): a campaign's spend × 3 for a day (one of the three largest), an ad channel's orders moved to
 * 'direct' for 3 days while its spend continues, refunds of the day + 20 % of the store's average
 * daily net sales, and a campaign's platform conversions at 0 for 5 days while it spends.
 */
export function injections(data: StoreData, from: string, to: string, perKind: number): Injection[] {
  const period = daysBetween(from, to);
  const campaigns = campaignsBySpend(data, from, to);
  const adChannels = [...data.channels.entries()]
    .filter(([, days]) => [...days.values()].some((figures) => figures.spendMinor > 0))
    .map(([channel, days]) => ({ channel, orders: [...days.entries()].filter(([day]) => day >= from && day <= to).reduce((sum, [, figures]) => sum + figures.orders, 0) }))
    .sort((a, b) => b.orders - a.orders);
  const result: Injection[] = [];
  const kinds: InjectionKind[] = ['spend_spike', 'tracking_outage', 'refund_surge', 'campaign_stops_converting'];
  kinds.forEach((kind, kindIndex) => {
    for (let index = 0; index < perKind; index += 1) {
      // Spread over the period, at least 5 days before its end, never on or around Black Friday.
      let start = addDays(from, Math.floor(((index + 0.5 + kindIndex / kinds.length) * (period - 5)) / perKind) % (period - 5));
      while (eventOffset(start) !== null || eventOffset(addDays(start, 5)) !== null) start = addDays(start, start > addDays(to, -30) ? -9 : 9);
      const span = (length: number) => Array.from({ length }, (_, offset) => addDays(start, offset));
      if (kind === 'spend_spike') {
        const { campaign } = campaigns[index % 3]!;
        const days = span(1);
        result.push({
          kind, days, scopeKey: scopeKeyOf({ level: 'campaign', channel: campaign.channel, campaignId: campaign.campaignId, label: '' }), metrics: ['marketing_spend', 'roas'],
          apply: (copy) => {
            const target = copy.campaigns.get(`${campaign.channel}:${campaign.campaignId}`)!;
            for (const day of days) {
              const figures = target.days.get(day);
              if (!figures) continue;
              const extra = figures.spendMinor * 2;
              figures.spendMinor += extra;
              const channelDay = copy.channels.get(campaign.channel)?.get(day);
              if (channelDay) channelDay.spendMinor += extra;
              const storeDay = copy.store.get(day)!;
              storeDay.spendMinor += extra;
              storeDay.adSpendMinor += extra;
            }
          },
        });
      } else if (kind === 'tracking_outage') {
        const { channel } = adChannels[index % Math.min(2, adChannels.length)]!;
        const days = span(3);
        result.push({
          kind, days, scopeKey: `channel:${channel}`, metrics: ['spend_without_conversions', 'orders', 'net_sales'],
          apply: (copy) => {
            const direct = copy.channels.get('direct') ?? new Map();
            copy.channels.set('direct', direct);
            for (const day of days) {
              const figures = copy.channels.get(channel)?.get(day);
              if (!figures) continue;
              const moved = direct.get(day) ?? { orders: 0, netSalesMinor: 0, newCustomers: 0, spendMinor: 0 };
              moved.orders += figures.orders;
              moved.netSalesMinor += figures.netSalesMinor;
              moved.newCustomers += figures.newCustomers;
              direct.set(day, moved);
              Object.assign(figures, { orders: 0, netSalesMinor: 0, newCustomers: 0 });
            }
          },
        });
      } else if (kind === 'refund_surge') {
        const days = span(1);
        result.push({
          kind, days, scopeKey: 'store', metrics: ['refunds'],
          apply: (copy) => {
            const extra = 0.2 * storeContextOf(copy, days[0]!).averageDailyNetSalesMinor;
            for (const day of days) {
              const figures = copy.store.get(day);
              if (!figures) continue;
              figures.refundsMinor += extra;
              figures.netSalesMinor -= extra;
            }
          },
        });
      } else {
        const { campaign } = campaigns.filter((item) => item.conversions > 0).sort((a, b) => b.conversions - a.conversions)[index % 2]!;
        const days = span(5);
        result.push({
          kind, days, scopeKey: scopeKeyOf({ level: 'campaign', channel: campaign.channel, campaignId: campaign.campaignId, label: '' }), metrics: ['spend_without_conversions', 'roas'],
          apply: (copy) => {
            const target = copy.campaigns.get(`${campaign.channel}:${campaign.campaignId}`)!;
            for (const day of days) {
              const figures = target.days.get(day);
              if (figures) Object.assign(figures, { conversions: 0, conversionValueMinor: 0 });
            }
          },
        });
      }
    }
  });
  return result;
}

export interface QualityReport {
  from: string;
  to: string;
  storeMonths: number;
  cleanAlerts: Finding[];
  falseAlarmsPerStoreMonth: number;
  /** Alerts on the clean data on Black Friday / Cyber Monday ± 3 days (each year in the period). */
  eventDayAlerts: Finding[];
  eventDaysJudged: number;
  injected: { injection: Injection; detected: Finding | null }[];
  recall: number;
  recallByKind: Record<InjectionKind, { injected: number; detected: number }>;
}

/** The evaluated period: from the first day with a full baseline (and last year's Black Friday if any) to `to`. */
export function evaluationStart(data: StoreData): string {
  const first = [...data.store.keys()].sort()[0]!;
  return addDays(first, BASELINE_DAYS);
}

export function measureQuality(data: StoreData, to: string, perKind: number, from: string = evaluationStart(data)): QualityReport {
  const cleanAlerts = detectPeriod(data, from, to);
  const prior: PriorAlert[] = cleanAlerts.map((finding) => ({ metric: finding.metric, scopeKey: scopeKeyOf(finding.scope), day: finding.day, up: finding.value > finding.expected }));
  const injected = injections(data, from, to, perKind).map((injection) => {
    const copy = copyStoreData(data);
    injection.apply(copy);
    const first = injection.days[0]!;
    const last = injection.days.at(-1)!;
    const found = detectPeriod(copy, first, last, prior.filter((alert) => alert.day < first));
    const detected = found.find((finding) => scopeKeyOf(finding.scope) === injection.scopeKey && injection.metrics.includes(finding.metric)) ?? null;
    return { injection, detected };
  });
  const recallByKind = {} as QualityReport['recallByKind'];
  for (const { injection, detected } of injected) {
    const entry = (recallByKind[injection.kind] ??= { injected: 0, detected: 0 });
    entry.injected += 1;
    if (detected) entry.detected += 1;
  }
  const storeMonths = (daysBetween(from, to) + 1) / 30.44;
  let eventDaysJudged = 0;
  for (let day = from; day <= to; day = addDays(day, 1)) if (eventOffset(day) !== null) eventDaysJudged += 1;
  return {
    from, to, storeMonths, cleanAlerts, falseAlarmsPerStoreMonth: cleanAlerts.length / storeMonths,
    eventDayAlerts: cleanAlerts.filter((finding) => eventOffset(finding.day) !== null), eventDaysJudged,
    injected, recall: injected.filter((item) => item.detected).length / Math.max(1, injected.length), recallByKind,
  };
}
