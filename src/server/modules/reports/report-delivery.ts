import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReportSchedule } from '../../../shared/reports.ts';
import { addDays, dayInZone } from '../../../shared/date-ranges.ts';
import { sendEmail } from '../email/email.service.ts';
import { Store } from '../stores/store.entity.ts';
import { periodOf, runReport } from './report-engine.ts';
import { definitionOf, reportCsv, textTable } from './reports.service.ts';
import { SavedReport } from './saved-report.entity.ts';

// Scheduled reports go out at 08:00 in the store's time zone: daily, weekly on Mondays, monthly on the 1st.
// The hourly job sends every report whose latest occurrence has passed and was not delivered yet;
// the check and the send share one transaction holding the report's row lock, and lastSentAt is set
// in it, so a retried or duplicated job never sends the same occurrence twice.

export const DELIVERY_HOUR = 8;

/** The UTC instant of a wall-clock time on a day in a time zone (DST-aware). */
export function zonedInstant(day: string, hour: number, timeZone: string): Date {
  const guess = Date.parse(`${day}T${String(hour).padStart(2, '0')}:00:00Z`);
  const offsetAt = (instant: number) => {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(instant));
    const get = (type: string) => Number(parts.find((part) => part.type === type)!.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - instant;
  };
  const first = guess - offsetAt(guess);
  return new Date(guess - offsetAt(first));
}

/** The latest delivery time at or before `now`: 08:00 store time every day (daily), on Monday (weekly) or on the 1st (monthly). */
export function latestOccurrence(schedule: Exclude<ReportSchedule, 'none'>, timeZone: string, now: Date): Date {
  const today = dayInZone(now, timeZone);
  const day = schedule === 'daily' ? today : schedule === 'weekly' ? periodOf(today, 'week') : `${today.slice(0, 7)}-01`;
  let occurrence = zonedInstant(day, DELIVERY_HOUR, timeZone);
  if (occurrence > now) {
    const earlier = schedule === 'daily' ? addDays(day, -1) : schedule === 'weekly' ? addDays(day, -7) : `${addDays(day, -1).slice(0, 7)}-01`;
    occurrence = zonedInstant(earlier, DELIVERY_HOUR, timeZone);
  }
  return occurrence;
}

/** `weekly-sales-2026-11-16-to-2026-11-22.csv`: the report's name in letters, digits and dashes, and its range. */
export function reportFileName(name: string, from: string, to: string): string {
  const slug = name.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().toLowerCase().replace(/[\s_-]+/g, '-').slice(0, 60) || 'report';
  return `${slug}-${from}-to-${to}.csv`;
}

/** Whether a report owes a delivery: an occurrence after both its last delivery and the moment it was scheduled. */
export function isDue(report: { schedule: ReportSchedule; recipients: string[]; lastSentAt?: Date | null; scheduledSince?: Date | null; createdAt: Date }, timeZone: string, now: Date): boolean {
  if (report.schedule === 'none' || report.recipients.length === 0) return false;
  const occurrence = latestOccurrence(report.schedule, timeZone, now);
  const since = report.scheduledSince ?? report.createdAt;
  return occurrence > since && (!report.lastSentAt || occurrence > report.lastSentAt);
}

export interface DeliveryOptions {
  /** Where links in the e-mail point (PUBLIC_URL, or the server's own address). */
  baseUrl: string;
  now?: Date;
  log?: (message: string) => void;
}

/** Sends every due scheduled report once; returns how many reports and e-mails went out. */
export async function deliverDueReports(em: EntityManager, options: DeliveryOptions): Promise<{ reports: number; emails: number }> {
  const now = options.now ?? new Date();
  const candidates = await em.fork().find(SavedReport, { schedule: { $ne: 'none' } }, { fields: ['store', 'id'] });
  let reports = 0;
  let emails = 0;
  for (const candidate of candidates) {
    const sent = await deliverReport(em.fork(), Number((candidate.store as { id: number }).id), Number(candidate.id), now, options);
    if (sent > 0) {
      reports += 1;
      emails += sent;
    }
  }
  return { reports, emails };
}

async function deliverReport(em: EntityManager, storeId: number, reportId: number, now: Date, options: DeliveryOptions): Promise<number> {
  return em.transactional(async (tx) => {
    const report = await tx.findOne(SavedReport, { store: storeId, id: reportId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const store = await tx.findOne(Store, { id: storeId });
    if (!report || !store || !isDue(report, store.timezone, now)) return 0;
    const result = await runReport(tx, store, definitionOf(report), now);
    const variables = {
      reportName: report.name,
      storeName: store.name,
      frequency: report.schedule,
      rangeFrom: result.range.from,
      rangeTo: result.range.to,
      currency: result.currency,
      table: textTable(result),
      reportUrl: `${options.baseUrl.replace(/\/$/, '')}/reports?report=${report.id}`,
    };
    const attachment = { filename: reportFileName(report.name, result.range.from, result.range.to), contentType: 'text/csv; charset=utf-8', content: reportCsv(result) };
    for (const to of report.recipients) {
      await sendEmail(
        tx,
        {
          to,
          template: 'scheduled_report',
          variables,
          attachments: [attachment],
          // A recipient may stop this report from the e-mail itself (List-Unsubscribe), without an account.
          unsubscribe: { target: { kind: 'report', storeId, reportId: report.id, email: to }, baseUrl: options.baseUrl },
        },
        options.log,
      );
    }
    report.lastSentAt = now;
    await tx.flush();
    return report.recipients.length;
  });
}
