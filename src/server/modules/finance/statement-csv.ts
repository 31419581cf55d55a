import type { StatementOutput } from '../../../shared/finance.ts';
import { formatMinorUnits } from '../../../shared/metrics.ts';
import { csvDocument, type CsvCell } from '../../csv.ts';
import { platformDisplayName } from '../../../shared/platforms.ts';

type Column = StatementOutput['total'];

/** The statement's rows as the CSV (and the page) lists them: label and how to read the value of a column. */
export function statementRows(statement: Pick<StatementOutput, 'adPlatforms'>): { key: string; label: string; value: (column: Column) => number | null; percent?: boolean }[] {
  return [
    { key: 'netSales', label: 'Net sales', value: (c) => c.netSales },
    { key: 'cogs', label: 'Cost of goods sold', value: (c) => c.cogs },
    { key: 'grossProfit', label: 'Gross profit', value: (c) => c.grossProfit },
    { key: 'shippingCosts', label: 'Shipping costs', value: (c) => c.shippingCosts },
    { key: 'paymentFees', label: 'Payment fees', value: (c) => c.paymentFees },
    ...statement.adPlatforms.map((platform) => ({
      key: `adSpend.${platform}`,
      label: `Ad spend: ${platformDisplayName(platform)}`,
      value: (c: Column) => c.adSpend[platform] ?? 0,
    })),
    { key: 'emailSpend', label: 'E-mail spend', value: (c) => c.emailSpend },
    { key: 'contributionMargin', label: 'Contribution margin', value: (c) => c.contributionMargin },
    { key: 'customExpenses', label: 'Custom expenses', value: (c) => c.customExpenses },
    { key: 'netProfit', label: 'Net profit', value: (c) => c.netProfit },
    { key: 'marginPercent', label: 'Margin %', value: (c) => c.marginPercent, percent: true },
  ];
}

/** The statement as CSV: a row per line, a column per month, then the total; amounts in major units. */
export function statementCsv(statement: StatementOutput): string {
  const header = [`Line (${statement.currency})`, ...statement.months.map((m) => m.month), 'Total'];
  const rows = statementRows(statement).map((row): CsvCell[] => {
    const cell = (column: Column): CsvCell => {
      const value = row.value(column);
      if (value === null) return '';
      return row.percent ? value.toFixed(1) : formatMinorUnits(value);
    };
    return [row.label, ...statement.months.map((m) => cell(m.column)), cell(statement.total)];
  });
  return csvDocument(header, rows);
}
