import type { EntityManager } from '@mikro-orm/postgresql';
import { AD_CHANNELS, EMAIL_CHANNELS, isAdChannel } from '../../../shared/commerce.ts';
import {
  expenseInMonth,
  monthList,
  pnlColumn,
  sumPnlColumns,
  type CostSettings,
  type Expense as ExpenseDto,
  type PnlMonthTotals,
  type StatementOutput,
} from '../../../shared/finance.ts';
import { AppError } from '../../errors.ts';
import { StoreCostSettings } from '../commerce/cost-settings.entity.ts';
import { lastDayOfMonth } from '../commerce/days.ts';
import { Expense, type ExpenseEntity } from '../commerce/expense.entity.ts';
import { withFxRates } from '../commerce/fx.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import type { StoreEntity } from '../stores/store.entity.ts';

export const EXPENSE_NOT_FOUND_MESSAGE = 'Expense not found';

type StoreRef = Pick<StoreEntity, 'id' | 'currency'>;

/** What a store without a settings row uses (the column defaults of store_cost_settings). */
export const DEFAULT_COST_SETTINGS: CostSettings = {
  paymentFeePercentBasisPoints: 290,
  paymentFeeFixedMinor: 30,
  shippingCostPerOrderMinor: 0,
  defaultCogsPercent: null,
};

// Cost settings

export async function costSettings(em: EntityManager, store: StoreRef): Promise<CostSettings & { currency: string }> {
  const row = await em.findOne(StoreCostSettings, { store: store.id });
  const settings = row
    ? {
        paymentFeePercentBasisPoints: row.paymentFeePercentBasisPoints,
        paymentFeeFixedMinor: row.paymentFeeFixedMinor,
        shippingCostPerOrderMinor: row.shippingCostPerOrderMinor,
        defaultCogsPercent: row.defaultCogsPercent === null || row.defaultCogsPercent === undefined ? null : Number(row.defaultCogsPercent),
      }
    : DEFAULT_COST_SETTINGS;
  return { ...settings, currency: store.currency };
}

export async function updateCostSettings(em: EntityManager, store: StoreRef, input: CostSettings) {
  const row = await em.findOne(StoreCostSettings, { store: store.id });
  if (row) em.assign(row, input);
  else em.create(StoreCostSettings, { store: store.id, ...input });
  await em.flush();
  return costSettings(em, store);
}

// Expenses

function toExpenseDto(expense: ExpenseEntity): ExpenseDto {
  return {
    id: Number(expense.id),
    name: expense.name,
    category: expense.category,
    amountMinor: Number(expense.amountMinor),
    currency: expense.currency,
    recurrence: expense.recurrence,
    startsOn: String(expense.startsOn),
    endsOn: expense.endsOn === null || expense.endsOn === undefined ? null : String(expense.endsOn),
  };
}

export async function listExpenses(em: EntityManager, store: StoreRef): Promise<ExpenseDto[]> {
  const rows = await em.find(Expense, { store: store.id }, { orderBy: { startsOn: 'desc', id: 'desc' } });
  return rows.map(toExpenseDto);
}

type ExpenseFields = Omit<ExpenseDto, 'id'>;

export async function createExpense(em: EntityManager, store: StoreRef, input: ExpenseFields): Promise<ExpenseDto> {
  const expense = em.create(Expense, { store: store.id, ...input });
  await em.flush();
  return toExpenseDto(expense);
}

async function ownExpense(em: EntityManager, store: StoreRef, id: number): Promise<ExpenseEntity> {
  const expense = await em.findOne(Expense, { store: store.id, id });
  if (!expense) throw new AppError('NOT_FOUND', EXPENSE_NOT_FOUND_MESSAGE);
  return expense;
}

export async function updateExpense(em: EntityManager, store: StoreRef, input: ExpenseFields & { id: number }): Promise<ExpenseDto> {
  const { id, ...fields } = input;
  const expense = await ownExpense(em, store, id);
  em.assign(expense, fields);
  await em.flush();
  return toExpenseDto(expense);
}

export async function removeExpense(em: EntityManager, store: StoreRef, id: number): Promise<{ id: number }> {
  const expense = await ownExpense(em, store, id);
  em.remove(expense);
  await em.flush();
  return { id };
}

// The statement

function emptyMonth(): PnlMonthTotals {
  return { netSales: 0, knownCogs: 0, uncostedSales: 0, orders: 0, shippingCharged: 0, taxes: 0, adSpend: {}, emailSpend: 0, customExpenses: 0 };
}

const EMAIL = new Set<string>(EMAIL_CHANNELS);

/**
 * The monthly P&L, read from the rollup tables (O(days)): each (day, currency) row converted at its
 * day's rate; the store's per-order costs and the custom expenses at the rate of the month's first day.
 */
export async function profitAndLossStatement(
  em: EntityManager,
  store: StoreRef,
  input: { from: string; to: string; currency?: string },
): Promise<StatementOutput> {
  const currency = input.currency ?? store.currency;
  const months = monthList(input.from, input.to);
  const firstDay = `${input.from}-01`;
  const lastDay = lastDayOfMonth(input.to);
  const q = sqlRunner(em);

  const [[daily, channels, expenses, settings], fx] = await withFxRates(
    em,
    [currency, store.currency],
    { from: firstDay, to: lastDay },
    Promise.all([
      q.rows<Record<string, string>>(
        `select to_char(day, 'YYYY-MM-DD') as day, currency, orders_count::text as orders, net_sales_minor::text as net_sales,
                cogs_minor::text as cogs, uncosted_sales_minor::text as uncosted, shipping_minor::text as shipping, taxes_minor::text as taxes
           from daily_rollups where store_id = $1 and day between $2::date and $3::date`,
        [store.id, firstDay, lastDay],
      ),
      q.rows<Record<string, string>>(
        `select to_char(day, 'YYYY-MM-DD') as day, channel, currency, spend_minor::text as spend
           from channel_daily_rollups where store_id = $1 and day between $2::date and $3::date and spend_minor <> 0`,
        [store.id, firstDay, lastDay],
      ),
      em.find(Expense, {
        store: store.id,
        startsOn: { $lte: lastDay },
        $or: [{ recurrence: 'monthly', $or: [{ endsOn: null }, { endsOn: { $gte: firstDay } }] }, { recurrence: 'one_off', startsOn: { $gte: firstDay } }],
      }),
      costSettings(em, store),
    ]),
    ([daily, channels, expenses]) => [...daily.map((r) => r.currency!), ...channels.map((r) => r.currency!), ...expenses.map((e) => e.currency)],
  );

  const totals = new Map(months.map((month) => [month, emptyMonth()]));
  for (const row of daily) {
    const month = totals.get(row.day!.slice(0, 7))!;
    const factor = fx.factor(row.currency!, currency, row.day!);
    month.orders += num(row.orders);
    month.netSales += num(row.net_sales) * factor;
    month.knownCogs += num(row.cogs) * factor;
    month.uncostedSales += num(row.uncosted) * factor;
    month.shippingCharged += num(row.shipping) * factor;
    month.taxes += num(row.taxes) * factor;
  }
  const adPlatforms = new Set<string>();
  for (const row of channels) {
    const month = totals.get(row.day!.slice(0, 7))!;
    const spend = num(row.spend) * fx.factor(row.currency!, currency, row.day!);
    if (isAdChannel(row.channel!)) {
      adPlatforms.add(row.channel!);
      month.adSpend[row.channel!] = (month.adSpend[row.channel!] ?? 0) + spend;
    } else if (EMAIL.has(row.channel!)) {
      month.emailSpend += spend;
    }
  }
  const platforms = AD_CHANNELS.filter((platform) => adPlatforms.has(platform));

  const expenseDtos = expenses.map(toExpenseDto);
  const columns = months.map((month) => {
    const monthTotals = totals.get(month)!;
    const monthStart = `${month}-01`;
    for (const expense of expenseDtos) {
      const amount = expenseInMonth(expense, month);
      if (amount !== 0) monthTotals.customExpenses += amount * fx.factor(expense.currency, currency, monthStart);
    }
    for (const platform of platforms) monthTotals.adSpend[platform] ??= 0;
    const storeFactor = fx.factor(store.currency, currency, monthStart);
    const column = pnlColumn(monthTotals, {
      paymentFeePercentBasisPoints: settings.paymentFeePercentBasisPoints,
      paymentFeeFixed: settings.paymentFeeFixedMinor * storeFactor,
      shippingCostPerOrder: settings.shippingCostPerOrderMinor * storeFactor,
      defaultCogsPercent: settings.defaultCogsPercent,
    });
    return { month, column };
  });

  return {
    currency,
    from: input.from,
    to: input.to,
    adPlatforms: platforms,
    months: columns,
    total: sumPnlColumns(columns.map((c) => c.column), platforms),
  };
}
