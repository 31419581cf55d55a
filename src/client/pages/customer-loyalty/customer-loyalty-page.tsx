import { useTranslation } from 'react-i18next';
import { DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { LoyaltyCustomers } from './loyalty-customers.tsx';
import { LoyaltyOverview, useLoyaltySummary } from './loyalty-overview.tsx';
import { useLoyaltyView } from './loyalty-url-state.ts';
import { RetentionSection } from './retention-heatmap.tsx';

/** /customer-loyalty: who keeps buying (README, "Customer loyalty"). */
export function CustomerLoyaltyPage() {
  const { t } = useTranslation('loyalty');
  return (
    <DataPage title={t('page.title')} description={t('page.description')} showDateRange={false}>
      <StoreDataGate>
        <LoyaltyContent />
      </StoreDataGate>
    </DataPage>
  );
}

function LoyaltyContent() {
  const state = useLoyaltyView();
  const { view, update } = state;
  // The tables wait for the store's first scores, like the tiles.
  const scored = useLoyaltySummary().data?.computedAt != null;
  return (
    <>
      <div className="space-y-6" data-testid="loyalty-overview">
        {/* Choosing a segment shows it in the top-customers tab. */}
        <LoyaltyOverview selected={view.segment} onSegment={(segment) => update({ tab: 'top', segment })} />
        {scored && <LoyaltyCustomers state={state} />}
      </div>
      <RetentionSection />
    </>
  );
}
