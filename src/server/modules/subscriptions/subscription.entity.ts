import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BILLING_INTERVALS } from '../../../shared/billing.ts';
import { SUBSCRIPTION_STATUSES } from '../../../shared/plans.ts';
import { User } from '../users/user.entity.ts';
import { Plan } from './plan.entity.ts';

export const Subscription = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    plan: () => p.manyToOne(Plan),
    status: p.enum(SUBSCRIPTION_STATUSES),
    provider: p.string().length(32),
    /** The payment provider's own reference (checkout session, subscription id). */
    providerReference: p.string().length(255).nullable(),
    currentPeriodStart: p.datetime(),
    currentPeriodEnd: p.datetime(),
    canceledAt: p.datetime().nullable(),
    /** Stripe: the subscription ends when its period does (cancelled in the Customer Portal). */
    cancelAtPeriodEnd: p.boolean().default(false),
    /** past_due: access lasts until then while Stripe retries the payment. */
    graceUntil: p.datetime().nullable(),
    billingInterval: p.enum(BILLING_INTERVALS).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ properties: ['user', 'createdAt'] }],
});

export type SubscriptionEntity = InferEntity<typeof Subscription>;
