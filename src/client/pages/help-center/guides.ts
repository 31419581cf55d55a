import type { TFunction } from 'i18next';

export const TOPICS = ['gettingStarted', 'features', 'integrations', 'troubleshooting'] as const;
export type Topic = (typeof TOPICS)[number];

/** Every guide, by topic, in reading order. The texts live in locales/<language>/help.json under guides.<slug>. */
export const GUIDES_BY_TOPIC: Record<Topic, readonly string[]> = {
  gettingStarted: ['create-first-store', 'switch-stores-and-currency', 'invite-guest-users', 'language-theme-settings'],
  features: ['dashboard-kpis', 'attribution-and-touchpoints', 'ai-insights-anomalies', 'ai-tools'],
  integrations: ['connect-shopify', 'connect-woocommerce', 'connect-ad-platforms', 'connect-email-platforms'],
  troubleshooting: ['numbers-differ', 'sync-delays', 'password-reset', 'subscription-and-limits'],
};

export type GuideBlock =
  | { type: 'p'; text: string }
  | { type: 'tip'; text: string }
  | { type: 'steps'; items: string[] }
  | { type: 'terms'; items: { term: string; text: string }[] };

export interface Guide {
  slug: string;
  topic: Topic;
  title: string;
  summary: string;
  sections: GuideBlock[];
}

export function isTopic(value: string | null): value is Topic {
  return (TOPICS as readonly string[]).includes(value ?? '');
}

function topicOf(slug: string): Topic | null {
  return TOPICS.find((topic) => GUIDES_BY_TOPIC[topic].includes(slug)) ?? null;
}

/** The guide in the current language, or null for an unknown slug. */
export function guideFor(t: TFunction<'help'>, slug: string): Guide | null {
  const topic = topicOf(slug);
  if (!topic) return null;
  const sections = t(`guides.${slug}.sections`, { returnObjects: true }) as unknown;
  return {
    slug,
    topic,
    title: t(`guides.${slug}.title`),
    summary: t(`guides.${slug}.summary`),
    sections: Array.isArray(sections) ? (sections as GuideBlock[]) : [],
  };
}

export function allGuides(t: TFunction<'help'>): Guide[] {
  return TOPICS.flatMap((topic) => GUIDES_BY_TOPIC[topic].map((slug) => guideFor(t, slug)!));
}

/** Lower case without accents, so "Fenêtre" matches "fenetre" and "ROAS" matches "roas". */
function normalize(text: string): string {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase();
}

function bodyText(guide: Guide): string {
  return guide.sections
    .map((block) => {
      if (block.type === 'steps') return block.items.join(' ');
      if (block.type === 'terms') return block.items.map((item) => `${item.term} ${item.text}`).join(' ');
      return block.text;
    })
    .join(' ');
}

/**
 * Guides whose title or body contain every word of the query (in any order), best first:
 * guides matching in the title before those matching only in the body.
 */
export function searchGuides(guides: readonly Guide[], query: string): Guide[] {
  const words = normalize(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const scored: { guide: Guide; score: number; order: number }[] = [];
  guides.forEach((guide, order) => {
    const title = normalize(guide.title);
    const everything = `${title} ${normalize(guide.summary)} ${normalize(bodyText(guide))}`;
    if (!words.every((word) => everything.includes(word))) return;
    const score = words.filter((word) => title.includes(word)).length;
    scored.push({ guide, score, order });
  });
  return scored.sort((a, b) => b.score - a.score || a.order - b.order).map((entry) => entry.guide);
}
