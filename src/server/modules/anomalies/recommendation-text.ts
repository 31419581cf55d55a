import { readFileSync } from 'node:fs';
import type { AnomalyRecommendation } from '../../../shared/anomalies.ts';

// The recommendation as a sentence for GET /api/anomalies, from the same locale files the dashboard
// reads (src/client/locales/<language>/dashboard.json, anomalies.recommendations.<code>).

export const RECOMMENDATION_LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
export type RecommendationLanguage = (typeof RECOMMENDATION_LANGUAGES)[number];

const sentences = new Map<RecommendationLanguage, Record<string, string>>();

function sentencesOf(language: RecommendationLanguage): Record<string, string> {
  let found = sentences.get(language);
  if (!found) {
    const file = new URL(`../../../client/locales/${language}/dashboard.json`, import.meta.url);
    found = (JSON.parse(readFileSync(file, 'utf8')) as { anomalies: { recommendations: Record<string, string> } }).anomalies.recommendations;
    sentences.set(language, found);
  }
  return found;
}

/** The first supported language of an Accept-Language header (or a plain code), else English. */
export function languageOf(requested: string | undefined | null): RecommendationLanguage {
  for (const part of (requested ?? '').split(',')) {
    const code = part.split(';')[0]!.trim().slice(0, 2).toLowerCase();
    if ((RECOMMENDATION_LANGUAGES as readonly string[]).includes(code)) return code as RecommendationLanguage;
  }
  return 'en';
}

export function recommendationText(recommendation: AnomalyRecommendation, language: RecommendationLanguage): string {
  const template = sentencesOf(language)[recommendation.code] ?? sentencesOf('en')[recommendation.code] ?? recommendation.code;
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(recommendation.params[name] ?? ''));
}
