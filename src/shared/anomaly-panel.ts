import { z } from 'zod';
import { anomalyList } from './anomalies.ts';
import { ANOMALY_LANGUAGES } from './anomaly-figures.ts';

export { ANOMALY_LANGUAGES, ANOMALY_LOWER_IS_BETTER, ANOMALY_METRIC_UNITS, formatAnomalyValue, type AnomalyLanguage, type AnomalyValueUnit } from './anomaly-figures.ts';

// What the dashboard's anomaly panel asks besides the list (README, "Anomaly insights: the panel"):
// whether resolved items are shown, the optional AI explanation, and the store's e-mail alert setting.

export const anomalyLanguage = z.enum(ANOMALY_LANGUAGES);

export const anomalyListInput = z.object({ includeResolved: z.boolean().default(false) }).default({ includeResolved: false });

export const anomalyPanelOutput = anomalyList.extend({
  /** Whether the optional LLM is configured: the panel shows "Explain" only then. */
  explainAvailable: z.boolean(),
});
export type AnomalyPanelOutput = z.infer<typeof anomalyPanelOutput>;

export const anomalyExplainInput = z.object({ id: z.string().min(1), language: anomalyLanguage.default('en') });
export const anomalyExplainOutput = z.object({ text: z.string() });

export const anomalyAlertSettings = z.object({
  /** E-mail the store's owner when detection finds a high-severity anomaly. Off by default. */
  emailAlerts: z.boolean(),
  /** The language the alerts are written in: the owner's when they switched them on. */
  language: anomalyLanguage,
});
export type AnomalyAlertSettings = z.infer<typeof anomalyAlertSettings>;
export const anomalyAlertSettingsInput = anomalyAlertSettings;
