import type { EntityManager } from '@mikro-orm/postgresql';
import { PLAN_CATALOGUE } from '../../../shared/plans.ts';
import { Plan } from './plan.entity.ts';

/** Makes the plans table match the catalogue in src/shared/plans.ts; safe to run at every start. */
export async function seedPlans(em: EntityManager): Promise<void> {
  for (const plan of PLAN_CATALOGUE) {
    await em.upsert(
      Plan,
      {
        name: plan.name,
        monthlyPriceMinor: plan.monthlyPriceMinor,
        currency: plan.currency,
        maxDashboards: plan.maxDashboards,
        includesAiTools: plan.includesAiTools,
        active: true,
      },
      { onConflictFields: ['name'] },
    );
  }
}
