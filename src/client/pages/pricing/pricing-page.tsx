import { useTranslation } from 'react-i18next';
import { TRIAL_DAYS } from '../../../shared/plans.ts';
import { PageHeader } from '../account-shared/page-header.tsx';
import { PlanCards } from './plan-cards.tsx';

/**
 * /pricing: the four plans. The route frames it (the signed-in layout, or the public header for
 * visitors, whose cards then lead to registration).
 */
export function PricingPage() {
  const { t } = useTranslation('account');
  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <PageHeader title={t('pricing.title')} description={t('pricing.description')} />
      <PlanCards />
      <p className="text-base-content/70 text-center text-sm text-balance">{t('pricing.footnote', { days: TRIAL_DAYS })}</p>
    </div>
  );
}
