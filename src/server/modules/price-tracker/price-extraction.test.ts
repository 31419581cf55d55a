import { describe, expect, it } from 'vitest';
import { differencePercent, parsePriceText, undercuts } from '../../../shared/price-tracker.ts';
import { availabilityOf, extractPrice } from './price-extraction.ts';
import { competitorShopPage, type CompetitorMarkup } from '../../../../test/fakes/competitor-shop.ts';

// Every markup style a shop states its price in, as fixtures; the competitor shop fake serves the same
// pages to the service tests and the e2e journey.

const page = (body: string, head = '') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('parsePriceText', () => {
  it.each([
    ['1.299,00 €', 129_900],
    ['$1,299.00', 129_900],
    ['1 299,00', 129_900],
    ['1\u00a0299,00 €', 129_900],
    ['£19.99', 1_999],
    ['19,9', 1_990],
    ['EUR 1299', 129_900],
    ['1,299', 129_900],
    ["CHF 1'299.50", 129_950],
    ['Price: 24.00 USD', 2_400],
  ])('%s -> %i minor units', (text, minor) => {
    expect(parsePriceText(text)).toBe(minor);
  });

  it('finds nothing where there is no number', () => {
    expect(parsePriceText('Call for price')).toBeNull();
  });
});

describe('availabilityOf', () => {
  it('reads schema.org URLs and plain words', () => {
    expect(availabilityOf('https://schema.org/InStock')).toBe('in_stock');
    expect(availabilityOf('http://schema.org/OutOfStock')).toBe('out_of_stock');
    expect(availabilityOf('SoldOut')).toBe('out_of_stock');
    expect(availabilityOf('out of stock')).toBe('out_of_stock');
    expect(availabilityOf('maybe')).toBe('unknown');
  });
});

describe('extractPrice', () => {
  const markups: [CompetitorMarkup, string][] = [
    ['json_ld', 'json_ld'],
    ['json_ld_graph', 'json_ld'],
    ['json_ld_aggregate', 'json_ld'],
    ['microdata', 'microdata'],
    ['open_graph', 'open_graph'],
    ['twitter_meta', 'meta'],
  ];
  it.each(markups)('reads the %s page of the competitor shop', (markup, method) => {
    const html = competitorShopPage(markup, { priceMinor: 129_900, currency: 'EUR', inStock: true });
    expect(extractPrice(html)).toEqual({ priceMinor: 129_900, currency: 'EUR', availability: markup === 'twitter_meta' ? 'unknown' : 'in_stock', method });
  });

  it('reads out-of-stock from JSON-LD and microdata', () => {
    expect(extractPrice(competitorShopPage('json_ld', { priceMinor: 500, currency: 'USD', inStock: false }))?.availability).toBe('out_of_stock');
    expect(extractPrice(competitorShopPage('microdata', { priceMinor: 500, currency: 'USD', inStock: false }))?.availability).toBe('out_of_stock');
  });

  it('takes the first offer of an offers array and lowPrice of an AggregateOffer', () => {
    const html = page('', `<script type="application/ld+json">${JSON.stringify({
      '@context': 'https://schema.org', '@type': ['Product'], name: 'Kettle',
      offers: [{ '@type': 'AggregateOffer', lowPrice: '17.50', highPrice: '25', priceCurrency: 'gbp', offerCount: 3 }, { '@type': 'Offer', price: 30 }],
    })}</script>`);
    expect(extractPrice(html)).toMatchObject({ priceMinor: 1_750, currency: 'GBP', method: 'json_ld' });
  });

  it('skips a broken JSON-LD block and reads the next one', () => {
    const html = page('', `<script type="application/ld+json">{ not json</script><script type="application/ld+json">{"@type":"Offer","price":"9.95","priceCurrency":"EUR"}</script>`);
    expect(extractPrice(html)).toMatchObject({ priceMinor: 995, currency: 'EUR' });
  });

  it('reads og:price:* and itemprop metas', () => {
    expect(extractPrice(page('', '<meta property="og:price:amount" content="12,50"><meta property="og:price:currency" content="EUR">'))).toMatchObject({ priceMinor: 1_250, currency: 'EUR', method: 'open_graph' });
    expect(extractPrice(page('<div itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="42.00"><meta itemprop="priceCurrency" content="USD"></div>'))).toMatchObject({ priceMinor: 4_200, currency: 'USD', method: 'microdata' });
  });

  it('uses the CSS selector only when nothing structured exists, locale-aware', () => {
    const html = competitorShopPage('plain', { priceMinor: 129_900, currency: 'EUR', inStock: true });
    expect(extractPrice(html)).toBeNull();
    expect(extractPrice(html, '.price-now')).toEqual({ priceMinor: 129_900, currency: 'EUR', availability: 'unknown', method: 'css_selector' });
    expect(extractPrice(html, '.nothing-here')).toBeNull();
    expect(extractPrice(html, '[[[')).toBeNull();
  });

  it('says out of stock from the words of a plain page', () => {
    expect(extractPrice(competitorShopPage('plain', { priceMinor: 1_000, currency: 'EUR', inStock: false }), '.price-now')?.availability).toBe('out_of_stock');
  });
});

describe('differencePercent and undercuts', () => {
  it('is (competitor - own) / own, negative when the competitor is cheaper', () => {
    expect(differencePercent(9_000, 10_000)).toBe(-10);
    expect(differencePercent(10_500, 10_000)).toBe(5);
    expect(differencePercent(9_000, null)).toBeNull();
  });
  it('undercuts only past the threshold', () => {
    expect(undercuts(-10, 5)).toBe(true);
    expect(undercuts(-5, 5)).toBe(false);
    expect(undercuts(3, 0)).toBe(false);
    expect(undercuts(null, 0)).toBe(false);
  });
});
