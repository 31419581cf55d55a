import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ANOMALY_RECOMMENDATION_CODES } from './anomalies.ts';
import { ANOMALY_LANGUAGES } from './anomaly-figures.ts';
import { anomalyLanguageOf, recommendationSentence } from './anomaly-recommendations.ts';

// The one source of the recommendation sentences: every code the detection gives has a sentence in
// every language, filled without leftovers; the locale files no longer hold a second copy.

const detectSource = readFileSync(new URL('../server/modules/anomalies/detect.ts', import.meta.url), 'utf8')
  + readFileSync(new URL('../server/modules/anomalies/anomalies.service.ts', import.meta.url), 'utf8');

describe('anomaly recommendation sentences', () => {
  it('has a filled sentence for every code in every language, and the codes are the ones the detection gives', () => {
    for (const code of ANOMALY_RECOMMENDATION_CODES) {
      expect(detectSource, `${code} is produced by the detection`).toContain(`'${code}'`);
      for (const language of ANOMALY_LANGUAGES) {
        const sentence = recommendationSentence({ code, params: { scope: 'x', change: '42' } }, 'Google Ads', language);
        expect(sentence, `${language} ${code}`).not.toMatch(/\{\{|\}\}/);
        expect(sentence).not.toBe(recommendationSentence({ code: 'generic', params: {} }, 'Google Ads', language));
      }
    }
  });

  it('reads an unknown code as the generic sentence, and takes the scope from the item', () => {
    expect(recommendationSentence({ code: 'a_code_added_later', params: { change: '5' } }, 'Trail Supply Co', 'en'))
      .toBe('Look at what changed for Trail Supply Co on this day: campaigns, prices, stock, the site and tracking.');
    expect(recommendationSentence({ code: 'check_bids_budget', params: { scope: 'old name', change: '+210' } }, 'Search — Brand', 'en'))
      .toBe('Spend on Search — Brand is up without a matching rise in return: check its bids and budget.');
    expect(recommendationSentence({ code: 'check_checkout_stock', params: { change: '62' } }, 'Trail Supply Co', 'de'))
      .toBe('Trail Supply Co ist um 62 % gefallen: Prüfen Sie, ob Shop, Checkout und der Bestand der Bestseller funktionieren.');
  });

  it('picks the language of a tag or an Accept-Language header', () => {
    expect(anomalyLanguageOf('es-ES')).toBe('es');
    expect(anomalyLanguageOf('nl-NL, fr;q=0.8')).toBe('fr');
    expect(anomalyLanguageOf(undefined)).toBe('en');
  });

  it('is the only copy: no locale file holds recommendation sentences', () => {
    const locales = new URL('../client/locales/', import.meta.url);
    for (const language of readdirSync(locales, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)) {
      const dashboard = JSON.parse(readFileSync(new URL(`${language}/dashboard.json`, locales), 'utf8'));
      expect(dashboard.anomalies.recommendations, language).toBeUndefined();
    }
  });
});
