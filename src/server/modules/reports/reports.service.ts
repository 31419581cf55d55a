import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { PLATFORM_NAMES, type PlatformKey } from '../../../shared/platforms.ts';
import { delta, formatMinorUnits, formatRatio } from '../../../shared/metrics.ts';
import {
  METRIC_FORMATS,
  type ReportDefinition,
  type ReportResult,
  type SavedReport as SavedReportDto,
  type saveReportInput,
  type updateReportInput,
} from '../../../shared/reports.ts';
import { csvDocument, type CsvCell } from '../../csv.ts';
import { AppError } from '../../errors.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { SavedReport, type SavedReportEntity } from './saved-report.entity.ts';

export const REPORT_NOT_FOUND_MESSAGE = 'Report not found';

type StoreRef = Pick<StoreEntity, 'id'>;

export function definitionOf(report: SavedReportEntity): ReportDefinition {
  return {
    metrics: report.metrics as ReportDefinition['metrics'],
    dimension: report.dimension,
    range: report.rangePreset ? { preset: report.rangePreset } : { from: String(report.rangeFrom), to: String(report.rangeTo) },
    granularity: report.granularity,
    compare: report.compare,
  };
}

function toDto(report: SavedReportEntity): SavedReportDto {
  return {
    id: Number(report.id),
    name: report.name,
    definition: definitionOf(report),
    schedule: report.schedule,
    recipients: [...report.recipients],
    lastSentAt: report.lastSentAt ? report.lastSentAt.toISOString() : null,
    createdBy: report.createdBy?.username ?? null,
    updatedAt: report.updatedAt.toISOString(),
  };
}

function definitionColumns(definition: ReportDefinition) {
  const range = definition.range;
  return {
    metrics: definition.metrics,
    dimension: definition.dimension,
    rangePreset: 'preset' in range ? range.preset : null,
    rangeFrom: 'preset' in range ? null : range.from,
    rangeTo: 'preset' in range ? null : range.to,
    granularity: definition.granularity,
    compare: definition.compare,
  };
}

export async function listReports(em: EntityManager, store: StoreRef): Promise<SavedReportDto[]> {
  const reports = await em.find(SavedReport, { store: store.id }, { orderBy: { name: 'asc', id: 'asc' }, populate: ['createdBy'] });
  return reports.map(toDto);
}

export async function findReport(em: EntityManager, store: StoreRef, id: number): Promise<SavedReportEntity> {
  const report = await em.findOne(SavedReport, { store: store.id, id }, { populate: ['createdBy'] });
  if (!report) throw new AppError('NOT_FOUND', REPORT_NOT_FOUND_MESSAGE);
  return report;
}

export async function getReport(em: EntityManager, store: StoreRef, id: number): Promise<SavedReportDto> {
  return toDto(await findReport(em, store, id));
}

export async function saveReport(em: EntityManager, store: StoreRef, user: UserEntity, input: z.output<typeof saveReportInput>): Promise<SavedReportDto> {
  const report = em.create(SavedReport, {
    store: store.id,
    name: input.name,
    ...definitionColumns(input.definition),
    schedule: input.schedule,
    recipients: [...new Set(input.recipients)],
    scheduledSince: input.schedule === 'none' ? null : new Date(),
    lastSentAt: null,
    createdBy: user,
  });
  await em.flush();
  return toDto(report);
}

export const RECIPIENT_REQUIRED_MESSAGE = 'Add at least one recipient to schedule the report';

export async function updateReport(em: EntityManager, store: StoreRef, input: z.output<typeof updateReportInput>): Promise<SavedReportDto> {
  const report = await findReport(em, store, input.id);
  if (input.name !== undefined) report.name = input.name;
  if (input.definition) em.assign(report, definitionColumns(input.definition));
  if (input.recipients !== undefined) report.recipients = [...new Set(input.recipients)];
  if (input.schedule !== undefined && input.schedule !== report.schedule) {
    report.schedule = input.schedule;
    // A new schedule owes nothing for occurrences before it.
    report.scheduledSince = input.schedule === 'none' ? null : new Date();
  }
  if (report.schedule !== 'none' && report.recipients.length === 0) {
    throw new AppError('BAD_REQUEST', RECIPIENT_REQUIRED_MESSAGE, { fieldErrors: [{ field: 'recipients', message: RECIPIENT_REQUIRED_MESSAGE }] });
  }
  await em.flush();
  return toDto(report);
}

export async function removeReport(em: EntityManager, store: StoreRef, id: number): Promise<{ id: number }> {
  const report = await findReport(em, store, id);
  em.remove(report);
  await em.flush();
  return { id };
}

// Presenting a result (CSV, e-mail)

const METRIC_LABELS: Record<string, string> = {
  netSales: 'Net sales',
  orders: 'Orders',
  aov: 'AOV',
  units: 'Units',
  refunds: 'Refunds',
  newCustomers: 'New customers',
  spend: 'Marketing spend',
  clicks: 'Clicks',
  impressions: 'Impressions',
  conversions: 'Platform conversions',
  roas: 'ROAS',
  mer: 'MER',
  cac: 'CAC',
};

const DIMENSION_LABELS: Record<string, string> = {
  day: 'Day',
  week: 'Week',
  month: 'Month',
  channel: 'Channel',
  platform: 'Platform',
  product: 'Product',
  campaign: 'Campaign',
  customer_type: 'Customer type',
};

const CHANNEL_LABELS: Record<string, string> = {
  organic_search: 'Organic search',
  organic_social: 'Organic social',
  referral: 'Referral',
  direct: 'Direct',
  email: 'E-mail',
  new: 'New customers',
  returning: 'Returning customers',
};

/** A row's dimension value as people read it (English; the page translates its own). */
export function dimensionValueLabel(result: Pick<ReportResult, 'dimension'>, label: string): string {
  if (result.dimension === 'channel' || result.dimension === 'platform' || result.dimension === 'customer_type') {
    return CHANNEL_LABELS[label] ?? PLATFORM_NAMES[label as PlatformKey] ?? label;
  }
  return label;
}

export function formatMetric(metric: string, value: number | null): string {
  if (value === null) return '';
  const format = METRIC_FORMATS[metric as keyof typeof METRIC_FORMATS];
  if (format === 'money') return formatMinorUnits(value);
  if (format === 'ratio') return formatRatio(value);
  return String(value);
}

/**
 * A change in per cent with one decimal, as a plain number under a "Δ %" header ("240.0", "-3.0",
 * "0.0"), so a spreadsheet reads it as a number; empty without one (delta() in metrics.ts).
 */
export function formatChange(current: number | null, previous: number | null): string {
  const percent = delta(current, previous).percent;
  return percent === null ? '' : (Math.round(percent * 10) / 10).toFixed(1);
}

/**
 * Header and rows of a result as text cells: the CSV export and the e-mail table. With a comparison,
 * each metric is followed by its change against the previous period ("Net sales Δ %"), as on the page.
 */
export function resultTable(result: ReportResult): { header: string[]; rows: string[][] } {
  const comparing = result.previousRange !== null;
  const header = [
    DIMENSION_LABELS[result.dimension]!,
    ...(result.hasPeriod ? ['Period'] : []),
    ...result.metrics.flatMap((metric) => [
      `${METRIC_LABELS[metric]}${METRIC_FORMATS[metric] === 'money' ? ` (${result.currency})` : ''}`,
      ...(comparing ? [`${METRIC_LABELS[metric]} Δ %`] : []),
    ]),
  ];
  const cells = (values: Record<string, number | null>, previous: Record<string, number | null> | null) =>
    result.metrics.flatMap((metric) => [
      formatMetric(metric, values[metric] ?? null),
      ...(comparing ? [formatChange(values[metric] ?? null, previous?.[metric] ?? null)] : []),
    ]);
  const rows = result.rows.map((row) => [dimensionValueLabel(result, row.label), ...(result.hasPeriod ? [row.period ?? ''] : []), ...cells(row.values, row.previous)]);
  rows.push(['Total', ...(result.hasPeriod ? [''] : []), ...cells(result.totals.values, result.totals.previous)]);
  return { header, rows };
}

export function reportCsv(result: ReportResult): string {
  const { header, rows } = resultTable(result);
  return csvDocument(header, rows as CsvCell[][]);
}

/** A plain-text table (columns padded) for the e-mail body, at most `maxRows` rows plus the total. */
export function textTable(result: ReportResult, maxRows = 25): string {
  const { header, rows } = resultTable(result);
  const total = rows.pop()!;
  const shown = rows.slice(0, maxRows);
  const all = [header, ...shown, total];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ').trimEnd();
  const separator = widths.map((width) => '-'.repeat(width)).join('  ');
  const more = rows.length > shown.length ? [`... and ${rows.length - shown.length} more rows`] : [];
  return [line(header), separator, ...shown.map(line), ...more, separator, line(total)].join('\n');
}
