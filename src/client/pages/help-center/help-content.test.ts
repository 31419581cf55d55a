import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import i18next, { type TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';
import { LEGAL_SECTIONS } from '../legal/legal-sections.ts';
import { allGuides, GUIDES_BY_TOPIC, guideFor, searchGuides, TOPICS } from './guides.ts';

const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
const NAMESPACES = ['help', 'features', 'legal'] as const;
const localesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../locales');

function load(language: string, namespace: string): unknown {
  return JSON.parse(readFileSync(path.join(localesDir, language, `${namespace}.json`), 'utf8'));
}

/** Every path of a JSON document: object keys, array lengths, block types and the placeholders of each text. */
function shape(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return [`${at}[${value.length}]`, ...value.flatMap((item, index) => shape(item, `${at}[${index}]`))];
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) =>
      key === 'type' ? [`${at}.type=${String(child)}`] : shape(child, at ? `${at}.${key}` : key),
    );
  }
  if (typeof value !== 'string') return [`${at}: not a string`];
  const placeholders = [...value.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1]).sort();
  return [`${at}${value.trim() ? '' : ' (empty)'} {${placeholders.join(',')}}`];
}

/** Every text with its path. */
function leaves(value: unknown, at = ''): [string, string][] {
  if (typeof value === 'string') return [[at, value]];
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) => leaves(child, `${at}.${key}`));
  }
  return [];
}

async function translator(language: string): Promise<TFunction<'help'>> {
  const instance = i18next.createInstance();
  await instance.init({
    lng: language,
    fallbackLng: false,
    ns: ['help'],
    defaultNS: 'help',
    resources: { [language]: { help: load(language, 'help') as Record<string, unknown> } },
  });
  return instance.getFixedT(language, 'help') as TFunction<'help'>;
}

describe('translations of the help centre, feature requests and legal pages', () => {
  for (const namespace of NAMESPACES) {
    for (const language of LANGUAGES.filter((candidate) => candidate !== 'en')) {
      it(`${language}/${namespace}.json has exactly the keys, lists and placeholders of en`, () => {
        expect(shape(load(language, namespace))).toEqual(shape(load('en', namespace)));
      });
    }
  }

  for (const language of LANGUAGES.filter((candidate) => candidate !== 'en')) {
    it(`${language}: no sentence is left in English`, () => {
      for (const namespace of NAMESPACES) {
        const english = new Map(leaves(load('en', namespace)));
        const untranslated = leaves(load(language, namespace)).filter(([at, text]) => text.length > 30 && english.get(at) === text);
        expect(untranslated, `${language}/${namespace}.json`).toEqual([]);
      }
    });
  }
});

describe('guides', () => {
  it('every topic has at least three guides, and every guide has its texts and only those', () => {
    const catalogued = TOPICS.flatMap((topic) => {
      expect(GUIDES_BY_TOPIC[topic].length).toBeGreaterThanOrEqual(3);
      return [...GUIDES_BY_TOPIC[topic]];
    });
    const written = Object.keys((load('en', 'help') as { guides: Record<string, unknown> }).guides);
    expect([...catalogued].sort()).toEqual([...written].sort());
    expect(new Set(catalogued).size).toBe(catalogued.length);
  });

  it('the KPI guide gives the definitions of the spec', async () => {
    const guide = guideFor(await translator('en'), 'dashboard-kpis')!;
    const terms = guide.sections.flatMap((block) => (block.type === 'terms' ? block.items : []));
    const definition = (term: string) => terms.find((item) => item.term.startsWith(term))?.text;
    expect(definition('Net sales')).toContain('Gross sales minus discounts and refunds, excluding tax and shipping');
    expect(definition('ROAS')).toContain('Net sales ÷ ad spend');
    expect(definition('MER')).toContain('Total revenue ÷ total marketing spend');
    expect(definition('CAC')).toContain('Marketing spend ÷ number of new customers');
    expect(definition('AOV')).toContain('Net sales ÷ number of orders');
    expect(definition('LTV')).toBeDefined();
  });

  it('search matches titles and bodies, every word, ignoring case and accents, title matches first', async () => {
    const en = allGuides(await translator('en'));
    expect(searchGuides(en, '').length).toBe(0);
    expect(searchGuides(en, '   ').length).toBe(0);
    expect(searchGuides(en, 'zzqxv')).toEqual([]);
    expect(searchGuides(en, 'WooCommerce')[0]?.slug).toBe('connect-woocommerce');
    // Only in the body of the troubleshooting guide.
    expect(searchGuides(en, 'attribution windows').map((guide) => guide.slug)).toContain('numbers-differ');
    expect(searchGuides(en, 'windows attribution').map((guide) => guide.slug)).toContain('numbers-differ');
    expect(searchGuides(en, 'password reset')[0]?.slug).toBe('password-reset');

    const es = allGuides(await translator('es'));
    expect(searchGuides(es, 'contrasena')[0]?.slug).toBe('password-reset');
    const de = allGuides(await translator('de'));
    expect(searchGuides(de, 'passwort').map((guide) => guide.slug)).toContain('password-reset');
  });

  it('unknown guides are null', async () => {
    expect(guideFor(await translator('en'), 'no-such-guide')).toBeNull();
  });
});

describe('legal pages', () => {
  it.each(LANGUAGES)('%s: both documents have every section of the table of contents, with text', (language) => {
    const legal = load(language, 'legal') as Record<'privacy' | 'terms', { sections: Record<string, { title: string; blocks: unknown[] }> }>;
    for (const document of ['privacy', 'terms'] as const) {
      expect(Object.keys(legal[document].sections)).toEqual([...LEGAL_SECTIONS[document]]);
      for (const section of Object.values(legal[document].sections)) expect(section.blocks.length).toBeGreaterThan(0);
    }
  });

  it('the English texts state what the brief requires', () => {
    const privacy = JSON.stringify((load('en', 'legal') as { privacy: unknown }).privacy);
    for (const phrase of ['analytics.sid', 'encrypted at rest', 'one-way hashes', 'Deleting a store deletes its data', 'never sell', 'Portability', 'Objection', 'Erasure', 'Rectification', 'Access']) {
      expect(privacy).toContain(phrase);
    }
    const terms = JSON.stringify((load('en', 'legal') as { terms: unknown }).terms);
    for (const phrase of ['14 days', 'England and Wales', 'read-only', 'audit log', '50 dashboards']) expect(terms).toContain(phrase);
  });
});
