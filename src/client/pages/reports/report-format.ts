import { useTranslation } from 'react-i18next';
import { formatRatio, NO_VALUE } from '../../../shared/metrics.ts';
import { METRIC_FORMATS, type ReportMetric, type ReportResult } from '../../../shared/reports.ts';
import { formatKpiMoney, useChannelName } from '../../components/kpi-card.tsx';

/** How a report shows its values (money, counts, ratios) and its dimension values, in the user's language. */
export function useReportFormat(currency: string) {
  const { t, i18n } = useTranslation('reports');
  const locale = i18n.resolvedLanguage ?? 'en';
  const channelName = useChannelName();
  return {
    isMoney: (metric: ReportMetric) => METRIC_FORMATS[metric] === 'money',
    value(metric: ReportMetric, value: number | null): string {
      if (value === null || !Number.isFinite(value)) return NO_VALUE;
      const format = METRIC_FORMATS[metric];
      if (format === 'money') return formatKpiMoney(value, currency, locale) ?? NO_VALUE;
      if (format === 'ratio') return formatRatio(value);
      return new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(value);
    },
    label(result: Pick<ReportResult, 'dimension'>, label: string): string {
      if (result.dimension === 'channel' || result.dimension === 'platform') return channelName(label);
      if (result.dimension === 'customer_type') return t(`customerTypes.${label}`, { defaultValue: label });
      if (result.dimension === 'day' || result.dimension === 'week') {
        const formatted = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${label}T00:00:00Z`));
        return result.dimension === 'week' ? t('weekOf', { day: formatted }) : formatted;
      }
      if (result.dimension === 'month') return new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${label}-01T00:00:00Z`));
      return label;
    },
  };
}
