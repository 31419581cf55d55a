import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EXPENSE_RECURRENCES } from '../../../shared/commerce.ts';
import { Store } from '../stores/store.entity.ts';

/** A custom cost for the P&L: every month from `startsOn` (until `endsOn`), or once on `startsOn`. */
export const Expense = defineEntity({
  name: 'Expense',
  tableName: 'expenses',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    name: p.string().length(120),
    category: p.string().length(64),
    amountMinor: p.bigint('number'),
    currency: p.character().length(3),
    recurrence: p.enum(EXPENSE_RECURRENCES),
    startsOn: p.date(),
    endsOn: p.date().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  primaryKeys: ['store', 'id'],
  indexes: [{ properties: ['store', 'startsOn'] }],
});

export type ExpenseEntity = InferEntity<typeof Expense>;
