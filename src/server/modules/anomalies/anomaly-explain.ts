import type { AnomalyItem } from '../../../shared/anomalies.ts';
import type { AnomalyLanguage } from '../../../shared/anomaly-panel.ts';
import type { ChatMessage, LlmProvider } from '../llm/llm-provider.ts';
import { describeAnomaly } from './anomaly-texts.ts';

// "Explain" on an anomaly (README, "Anomaly insights: Explain"): the server writes the prompt from the
// item's own figures (never text a user typed), asks the optional LLM, and answers in the user's language.

const LANGUAGE_NAMES: Record<AnomalyLanguage, string> = { en: 'English', es: 'Spanish', fr: 'French', de: 'German' };

/** The conversation sent to the model for one item. */
export function explainPrompt(item: AnomalyItem, language: AnomalyLanguage, currency: string): ChatMessage[] {
  const said = describeAnomaly(item, language, currency);
  const recent = item.evidence.slice(-14).map((point) => `${point.at}: ${point.value ?? 'n/a'} (expected ${point.expected ?? 'n/a'}, range ${point.lower ?? 'n/a'}–${point.upper ?? 'n/a'})`);
  return [
    {
      role: 'system',
      content:
        `You are an e-commerce analyst. Explain an anomaly in a store's figures to its owner in ${LANGUAGE_NAMES[language]}, ` +
        'in at most 4 short sentences: what happened, the likely causes, and what to check first. Use only the figures given; do not invent data.',
    },
    {
      role: 'user',
      content: [
        `Metric: ${said.metric} (${item.metric})`,
        `Scope: ${said.scope}`,
        `Day: ${item.day}${item.intraday ? ' (today so far, against the same hours of the baseline days)' : ''}`,
        `Detected: ${said.detected}; expected: ${said.expected}; change: ${said.change}; severity: ${item.severity}`,
        `Rule-based recommendation: ${said.recommendation}`,
        ...(recent.length > 0 ? ['Recent days (value, expected, robust range):', ...recent] : []),
      ].join('\n'),
    },
  ];
}

export async function explainAnomaly(llm: LlmProvider, item: AnomalyItem, language: AnomalyLanguage, currency: string): Promise<string> {
  return llm.complete(explainPrompt(item, language, currency));
}
