import { useTranslation } from 'react-i18next';
import { DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { RetentionSection } from './retention-heatmap.tsx';

/** /customer-loyalty: who keeps buying (README, "Customer loyalty"). */
export function CustomerLoyaltyPage() {
  const { t } = useTranslation('loyalty');
  return (
    <DataPage title={t('page.title')} description={t('page.description')} showDateRange={false}>
      <StoreDataGate>
        {/* The loyalty overview goes here: tiles, the segment grid and the top / at-risk customers tables (loyalty.summary, loyalty.customers). */}
        <div className="space-y-6 empty:hidden" data-testid="loyalty-overview" />
        <RetentionSection />
      </StoreDataGate>
    </DataPage>
  );
}
