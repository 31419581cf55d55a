import { z } from 'zod';
import {
  costSettingsOutput,
  costSettingsSchema,
  createExpenseInput,
  expenseIdInput,
  expenseOutput,
  productsListInput,
  productsListOutput,
  statementInput,
  statementOutput,
  updateExpenseInput,
  updateProductCostInput,
  updateProductCostOutput,
} from '../../../shared/finance.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import {
  costSettings,
  createExpense,
  listExpenses,
  profitAndLossStatement,
  removeExpense,
  updateCostSettings,
  updateExpense,
} from './finance.service.ts';
import { listProductCosts, updateProductCost } from './product-costs.service.ts';

/** The profit-and-loss statement and the costs behind it, for the active store. */
export const financeRouter = router({
  /** Monthly statement (one column per month and a total), money in the display currency. */
  statement: storeProcedure
    .input(statementInput)
    .output(statementOutput)
    .query(({ ctx, input }) => profitAndLossStatement(ctx.em, ctx.store, input)),

  expenses: router({
    list: storeProcedure
      .output(z.array(expenseOutput))
      .query(({ ctx }) => listExpenses(ctx.em, ctx.store)),
    create: storeProcedure
      .input(createExpenseInput)
      .output(expenseOutput)
      .mutation(({ ctx, input }) => createExpense(ctx.em, ctx.store, input)),
    update: storeProcedure
      .input(updateExpenseInput)
      .output(expenseOutput)
      .mutation(({ ctx, input }) => updateExpense(ctx.em, ctx.store, input)),
    remove: storeProcedure
      .input(expenseIdInput)
      .output(z.object({ id: z.number() }))
      .mutation(({ ctx, input }) => removeExpense(ctx.em, ctx.store, input.id)),
  }),

  costSettings: router({
    get: storeProcedure.output(costSettingsOutput).query(({ ctx }) => costSettings(ctx.em, ctx.store)),
    update: storeProcedure
      .input(costSettingsSchema)
      .output(costSettingsOutput)
      .mutation(({ ctx, input }) => updateCostSettings(ctx.em, ctx.store, input)),
  }),

  products: router({
    /** The catalogue with unit costs, best sellers of the last 30 days first. */
    list: storeProcedure
      .input(productsListInput)
      .output(productsListOutput)
      .query(({ ctx, input }) => listProductCosts(ctx.em, ctx.store, input)),
    /** Sets a product's unit cost (COGS), by default also on the lines of past orders. */
    updateCost: storeProcedure
      .input(updateProductCostInput)
      .output(updateProductCostOutput)
      .mutation(({ ctx, input }) => updateProductCost(ctx.em, ctx.store, input)),
  }),
});
