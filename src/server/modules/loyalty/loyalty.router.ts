import { z } from 'zod';
import {
  loyaltyCustomerOutput, loyaltyCustomersInput, loyaltyCustomersOutput, loyaltyRestInput, loyaltyRestOutput, loyaltySummaryOutput,
} from '../../../shared/loyalty.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { loyaltyCsv, loyaltyCustomer, loyaltyCustomers, loyaltySummary } from './loyalty.service.ts';
import { loyaltyRetentionInput, loyaltyRetentionOutput } from '../../../shared/loyalty-retention.ts';
import { loyaltyRetention } from './retention.service.ts';

// Customer loyalty of the active store (README, "Customer loyalty"): what the loyalty job stored,
// read through the store's access like every tenant read.

/** Minor units -> a decimal amount (every supported currency has 2 decimals). */
const decimal = (minor: number) => Math.round(minor) / 100;

export const loyaltyRouter = router({
  /** The cohort-retention heat-map: customers by the month of their first order and the share of them who ordered in each month since. */
  retention: storeProcedure
    .input(loyaltyRetentionInput)
    .output(loyaltyRetentionOutput)
    .query(({ ctx, input }) => loyaltyRetention(ctx.em, ctx.store, input)),

  /** Tiles, the model and its holdout error against the naive baseline, and the segment grid. */
  summary: storeProcedure
    .input(z.void())
    .output(loyaltySummaryOutput)
    .query(({ ctx }) => loyaltySummary(ctx.em, ctx.store)),

  /** The customers table: segment or at-risk filter, search, sort, server-side pages. */
  customers: storeProcedure
    .input(loyaltyCustomersInput)
    .output(loyaltyCustomersOutput)
    .query(({ ctx, input }) => loyaltyCustomers(ctx.em, ctx.store, input)),

  /** One customer: their orders and the inputs behind their scores. */
  customer: storeProcedure
    .input(z.object({ customerId: z.coerce.number().int().positive() }))
    .output(loyaltyCustomerOutput)
    .query(({ ctx, input }) => loyaltyCustomer(ctx.em, ctx.store, input.customerId)),

  /** The filtered customers, every page, as CSV text (the screen downloads it). */
  exportCsv: storeProcedure
    .input(loyaltyCustomersInput.omit({ page: true, pageSize: true }))
    .output(z.object({ fileName: z.string(), csv: z.string() }))
    .query(async ({ ctx, input }) => ({
      fileName: `customer-loyalty-${input.segment ?? (input.atRisk ? 'at-risk' : 'all')}.csv`,
      csv: await loyaltyCsv(ctx.em, ctx.store, input),
    })),

  /** GET /api/customers/loyalty: the documented shape, 25 customers a page, decimals in the store's currency. */
  rest: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/customers/loyalty', tags: ['customers'], summary: 'Customers with their loyalty score, churn risk, predicted 12-month value and RFM segment' } })
    .input(loyaltyRestInput)
    .output(loyaltyRestOutput)
    .query(async ({ ctx, input }) => {
      const page = await loyaltyCustomers(ctx.em, ctx.store, { segment: input.segment, sort: input.sort, page: input.page, pageSize: 25 });
      return {
        model: page.model?.model ?? 'rfm',
        customers: page.customers.map((row) => ({
          id: row.id, name: row.name, email: row.email, orders: row.orders, spent: decimal(row.spentMinor), lastOrderAt: row.lastOrderAt,
          loyaltyScore: row.loyaltyScore, churnRisk: row.churnRisk, predictedValue: row.predictedValue12mMinor === null ? null : decimal(row.predictedValue12mMinor), segment: row.segment,
        })),
        total: page.total,
      };
    }),
});
