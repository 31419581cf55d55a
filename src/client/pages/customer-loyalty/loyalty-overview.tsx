import { GaugeIcon, UsersIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { ACTIVE_CUSTOMER_DAYS, AT_RISK_CHURN, LOYALTY_SEGMENTS, MIN_MODEL_CUSTOMERS, MIN_MODEL_HISTORY_DAYS, type LoyaltySegment, type LoyaltySummaryOutput } from '../../../shared/loyalty.ts';
import { DataError, DataLoading } from '../../components/data-page.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { KpiCard } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { trpc } from '../../lib/trpc.ts';

// The top of /customer-loyalty (README, "Customer loyalty"): the tiles, which model scored the
// store and how well it did on held-out orders, the score in one sentence, and the segment grid.

/** While the loyalty job has not run for the store yet (just after a first sync or the demo load). */
const WAITING_POLL_MS = 3_000;

/** The summary, asked again every few seconds until the store's first scores exist. */
export function useLoyaltySummary() {
  return trpc.loyalty.summary.useQuery(undefined, { refetchInterval: (query) => (query.state.data && query.state.data.computedAt === null ? WAITING_POLL_MS : false) });
}

export function LoyaltyOverview({ selected, onSegment }: { selected: LoyaltySegment | null; onSegment: (segment: LoyaltySegment | null) => void }) {
  const { t } = useTranslation('loyalty');
  const summary = useLoyaltySummary();
  if (summary.isError) return <DataError error={summary.error} onRetry={() => void summary.refetch()} />;
  if (!summary.data) return <DataLoading label={t('overview.loading')} cards={4} gridClassName="grid-cols-2 lg:grid-cols-4" chartClassName="h-40" />;
  if (summary.data.computedAt === null) {
    return (
      <div role="status" data-testid="loyalty-waiting">
        <EmptyState icon={GaugeIcon} title={t('overview.waiting.title')} body={t('overview.waiting.body')} />
      </div>
    );
  }
  return (
    <>
      <Tiles summary={summary.data} />
      <SegmentGrid summary={summary.data} selected={selected} onSegment={onSegment} />
    </>
  );
}

function Tiles({ summary }: { summary: LoyaltySummaryOutput }) {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const model = summary.model?.model ?? 'rfm';
  return (
    <section aria-labelledby="loyalty-tiles-title" className="space-y-3" data-testid="loyalty-tiles">
      <h2 id="loyalty-tiles-title" className="sr-only">
        {t('tiles.title')}
      </h2>
      <ul className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        <li className="flex">
          <KpiCard comparable={false} testId="loyalty-tile-active" label={t('tiles.active')} value={format.integer(summary.activeCustomers)} hint={t('tiles.activeHint', { days: ACTIVE_CUSTOMER_DAYS, total: format.integer(summary.customers) })} />
        </li>
        <li className="flex">
          <KpiCard comparable={false} testId="loyalty-tile-repeat" label={t('tiles.repeat')} value={format.percent(summary.repeatRate)} hint={t('tiles.repeatHint')} />
        </li>
        <li className="flex">
          <KpiCard
            comparable={false}
            testId="loyalty-tile-at-risk"
            label={t('tiles.atRiskRevenue')}
            value={format.money(summary.atRiskRevenueMinor, summary.currency)}
            hint={t('tiles.atRiskHint', { count: summary.atRiskCustomers, customers: format.integer(summary.atRiskCustomers), threshold: format.percent(AT_RISK_CHURN, 0) })}
            note={summary.atRiskRevenueMinor === null ? t('tiles.atRiskRfm') : undefined}
          />
        </li>
        <li className="flex">
          <KpiCard comparable={false} testId="loyalty-tile-model" label={t('tiles.model')} value={t(`model.${model}`)} hint={t(`model.${model}Hint`)} />
        </li>
      </ul>
      <ModelNote summary={summary} />
    </section>
  );
}

/** Why the store is scored by RFM only, or how the model did on the orders it did not see; and the score in one sentence. */
function ModelNote({ summary }: { summary: LoyaltySummaryOutput }) {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const model = summary.model;
  let accuracy: string;
  if (!model) accuracy = t('model.none');
  else if (model.model === 'rfm') {
    accuracy = t(`fallback.${model.fallbackReason ?? 'fit_failed'}`, {
      customers: format.integer(model.customers),
      minCustomers: format.integer(MIN_MODEL_CUSTOMERS),
      days: format.integer(model.historyDays),
      minDays: format.integer(MIN_MODEL_HISTORY_DAYS),
    });
  } else if (model.holdoutMae === null || model.baselineMae === null || model.baselineMae === 0) accuracy = t('holdout.unmeasured');
  else {
    const change = (model.baselineMae - model.holdoutMae) / model.baselineMae;
    accuracy = t(change >= 0 ? 'holdout.better' : 'holdout.worse', {
      model: format.decimal(model.holdoutMae),
      baseline: format.decimal(model.baselineMae),
      change: format.percent(Math.abs(change)),
      customers: format.integer(model.holdoutCustomers),
    });
  }
  return (
    <div className="bg-base-200/60 rounded-box space-y-1.5 px-4 py-3 text-sm" data-testid="loyalty-model-note">
      <p data-testid="loyalty-accuracy">{accuracy}</p>
      <p className="text-base-content/75" data-testid="loyalty-score-explanation">
        {t(`score.${model?.model ?? 'rfm'}`)}
      </p>
    </div>
  );
}

/** Each segment's customers and revenue; choosing one filters the customers table (again: all customers). */
function SegmentGrid({ summary, selected, onSegment }: { summary: LoyaltySummaryOutput; selected: LoyaltySegment | null; onSegment: (segment: LoyaltySegment | null) => void }) {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const bySegment = new Map(summary.segments.map((row) => [row.segment, row]));
  const total = summary.segments.reduce((sum, row) => sum + row.customers, 0);
  return (
    <SectionCard titleId="segments-title" title={t('segments.title')} description={t('segments.description')} testId="loyalty-segments">
      <ul className="grid grid-cols-2 gap-2 sm:gap-3 md:grid-cols-4">
        {LOYALTY_SEGMENTS.map((segment) => {
          const row = bySegment.get(segment);
          const customers = row?.customers ?? 0;
          const active = selected === segment;
          return (
            <li key={segment} className="flex">
              <button
                type="button"
                aria-pressed={active}
                onClick={() => onSegment(active ? null : segment)}
                className={`rounded-box flex w-full min-w-0 flex-col items-start gap-1 border p-3 text-left transition-colors ${
                  active ? 'border-primary bg-primary/10 ring-primary/30 ring-2' : 'border-base-content/10 hover:border-primary/40 bg-base-100'
                }`}
                title={t(`segmentRules.${segment}`)}
                data-testid="segment-tile"
                data-segment={segment}
                data-customers={customers}
              >
                <span className="text-base-content/80 text-sm font-semibold">{t(`segmentNames.${segment}`)}</span>
                <span className="flex items-baseline gap-1.5">
                  <UsersIcon className="text-base-content/50 size-3.5 self-center" aria-hidden="true" />
                  <span className="text-xl font-bold tabular-nums" data-testid="segment-customers">
                    {format.integer(customers)}
                  </span>
                  <span className="text-base-content/60 text-xs tabular-nums">{total > 0 ? format.percent(customers / total, customers > 0 && customers / total < 0.1 ? 1 : 0) : ''}</span>
                </span>
                <span className="text-base-content/70 text-xs tabular-nums" data-testid="segment-revenue">
                  {t('segments.revenue', { amount: format.money(row?.spentMinor ?? 0, summary.currency) })}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </SectionCard>
  );
}
