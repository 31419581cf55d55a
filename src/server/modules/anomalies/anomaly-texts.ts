import de from '../../../client/locales/de/dashboard.json' with { type: 'json' };
import en from '../../../client/locales/en/dashboard.json' with { type: 'json' };
import es from '../../../client/locales/es/dashboard.json' with { type: 'json' };
import fr from '../../../client/locales/fr/dashboard.json' with { type: 'json' };
import type { AnomalyItem } from '../../../shared/anomalies.ts';
import { ANOMALY_METRIC_UNITS, formatAnomalyValue, type AnomalyLanguage } from '../../../shared/anomaly-panel.ts';
import { recommendationSentence } from '../../../shared/anomaly-recommendations.ts';

// The anomaly texts the server writes (alert e-mails, the AI prompt): the same sentences as the
// dashboard's, from the client's locale files ("anomalies" in dashboard.json), so each is translated
// once; the recommendations come from src/shared/anomaly-recommendations.ts, as the panel's do.

type AnomalyTexts = typeof en.anomalies;
const TEXTS: Record<AnomalyLanguage, AnomalyTexts> = { en: en.anomalies, es: es.anomalies, fr: fr.anomalies, de: de.anomalies };

/** i18next's {{name}} interpolation, for the few server-side sentences. */
export function interpolate(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export function anomalyTexts(language: AnomalyLanguage): AnomalyTexts {
  return TEXTS[language] ?? TEXTS.en;
}

/** What the user reads for an item, in their language. */
export function describeAnomaly(item: AnomalyItem, language: AnomalyLanguage, currency: string) {
  const texts = anomalyTexts(language);
  const metric = texts.metrics[item.metric] ?? item.metric;
  const scope = interpolate(texts.scopes[item.scope.level], { label: item.scope.label });
  const recommendation = recommendationSentence(item.recommendation, item.scope.label, language);
  const unit = ANOMALY_METRIC_UNITS[item.metric] ?? 'count';
  const change = item.percentChange === null
    ? '—'
    : new Intl.NumberFormat(language, { style: 'percent', signDisplay: 'exceptZero', maximumFractionDigits: 1 }).format(item.percentChange / 100);
  return {
    metric,
    scope,
    recommendation,
    detected: formatAnomalyValue(unit, item.detectedValue, currency, language),
    expected: formatAnomalyValue(unit, item.expectedValue, currency, language),
    change,
    severity: texts.severities[item.severity],
  };
}
