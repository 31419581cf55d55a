import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Plan = defineEntity({
  name: 'Plan',
  tableName: 'plans',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(64).unique(),
    monthlyPriceMinor: p.integer(),
    currency: p.string().length(3),
    maxDashboards: p.integer(),
    includesAiTools: p.boolean(),
    active: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type PlanEntity = InferEntity<typeof Plan>;
