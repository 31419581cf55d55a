import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { feedTsv, feedXml, GOOGLE_NAMESPACE } from './feed-export.ts';
import { auditItem, feedItemOf, isValidGtin, ruleSuggestions, scoreOf, suggestedDescription, suggestedTitle, trimToLimit, type FeedItem } from './feed-rules.ts';

const complete: FeedItem = {
  id: 'sku-1',
  title: 'Northwind Merino Hoodie - Black, Size M',
  description: 'A warm hoodie knitted from merino wool, with a kangaroo pocket.',
  link: 'https://shop.example/products/merino-hoodie',
  imageLink: 'https://cdn.example/hoodie.jpg',
  availability: 'in_stock',
  priceMinor: 5999,
  currency: 'GBP',
  brand: 'Northwind',
  gtin: '4006381333931',
  mpn: '',
  condition: 'new',
};

const typesOf = (item: Partial<FeedItem>) => auditItem({ ...complete, ...item }).map((issue) => issue.type);

describe('GTIN check digits (GS1 mod 10)', () => {
  it('accepts GTIN-8, -12, -13 and -14 whose check digit is right', () => {
    // 036000291452 by hand: from the right 5·3 + 4·1 + 1·3 + 9·1 + 2·3 + 0 + 0 + 0 + 6·3 + 3·1 + 0·3 = 58 -> (10 - 8) = 2.
    for (const gtin of ['96385074', '036000291452', '4006381333931', '10614141000415']) expect(isValidGtin(gtin), gtin).toBe(true);
  });

  it('refuses a wrong check digit, a wrong length, letters and all zeros', () => {
    for (const gtin of ['96385075', '036000291453', '4006381333932', '10614141000416', '12345', '40063813339311', '400638133393X', '00000000']) {
      expect(isValidGtin(gtin), gtin).toBe(false);
    }
  });
});

describe('audit rules', () => {
  it('a complete product has no issue and scores 100', () => {
    expect(auditItem(complete)).toEqual([]);
    expect(scoreOf(auditItem(complete))).toBe(100);
  });

  it('reports each required attribute that is missing', () => {
    expect(typesOf({ title: ' ' })).toContain('missing_title');
    expect(typesOf({ description: '' })).toEqual(['missing_description']);
    expect(typesOf({ link: '' })).toEqual(['missing_link']);
    expect(typesOf({ link: 'shop.example/x' })).toEqual(['missing_link']);
    expect(typesOf({ imageLink: '' })).toEqual(['missing_image']);
    expect(typesOf({ priceMinor: 0 })).toEqual(['invalid_price']);
    expect(typesOf({ brand: '' })).toEqual(['missing_brand']);
    expect(typesOf({ gtin: '', mpn: '' })).toEqual(['missing_identifier']);
    expect(typesOf({ gtin: '', mpn: 'NW-HOOD-M' })).toEqual([]);
    expect(typesOf({ gtin: '4006381333932' })).toEqual(['invalid_gtin']);
    expect(typesOf({ id: 'x'.repeat(51) })).toEqual(['id_too_long']);
  });

  it('title: at most 150 characters, no capitals only, no promotional text, brand and more than two words', () => {
    expect(typesOf({ title: `Northwind ${'wool '.repeat(28)}`.trim() })).toEqual([]); // 149 characters
    expect(typesOf({ title: `Northwind ${'wool '.repeat(29)}`.trim() })).toEqual(['title_too_long']);
    expect(typesOf({ title: 'NORTHWIND MERINO HOODIE BLACK' })).toEqual(['title_all_caps']);
    expect(typesOf({ title: 'Northwind Merino Hoodie - FREE SHIPPING' })).toEqual(['title_promotional']);
    expect(typesOf({ title: 'Northwind Hoodie 20% off' })).toEqual(['title_promotional']);
    expect(typesOf({ title: 'Merino Hoodie Black' })).toEqual(['title_structure']);
    expect(typesOf({ title: 'Northwind Hoodie' })).toEqual(['title_structure']);
  });

  it('description: at most 5,000 characters, no capitals only, no promotional text', () => {
    expect(typesOf({ description: 'a'.repeat(5000) })).toEqual([]);
    expect(typesOf({ description: 'a'.repeat(5001) })).toEqual(['description_too_long']);
    expect(typesOf({ description: 'WARM MERINO HOODIE' })).toEqual(['description_all_caps']);
    expect(typesOf({ description: 'Warm hoodie. Buy now!!' })).toEqual(['description_promotional']);
  });

  it('scores 100 less 20 per error and 8 per warning, never below 0', () => {
    expect(scoreOf(auditItem({ ...complete, brand: '' }))).toBe(80);
    expect(scoreOf(auditItem({ ...complete, gtin: '' }))).toBe(92);
    expect(scoreOf(auditItem({ ...complete, title: '', description: '', link: '', imageLink: '', brand: '', priceMinor: 0 }))).toBe(0);
  });
});

describe('suggestions by rules', () => {
  it('titles: brand first, capitals and promotions out, plain dashes, within 150 at a word boundary', () => {
    expect(suggestedTitle('Hoodie — Black', 'Northwind')).toBe('Northwind Hoodie - Black');
    expect(suggestedTitle('MERINO HOODIE BLACK - FREE SHIPPING!!', 'Northwind')).toBe('Northwind Merino Hoodie Black');
    expect(suggestedTitle('Northwind Hoodie', 'northwind')).toBe('Northwind Hoodie');
    const long = suggestedTitle(`Hoodie ${'merino '.repeat(40)}`, 'Northwind');
    expect(long.length).toBeLessThanOrEqual(150);
    expect(long.endsWith('merino')).toBe(true);
    expect(trimToLimit('one two three', 9)).toBe('one two');
  });

  it('descriptions: cleaned, or built from the title and brand', () => {
    expect(suggestedDescription('', 'Hoodie — Black', 'Northwind')).toBe('Hoodie - Black by Northwind.');
    expect(suggestedDescription('WARM WOOL HOODIE. SALE', 'x', 'Northwind')).toBe('Warm Wool Hoodie.');
  });

  it('suggest what rules can know for a bare catalogue product, and each suggestion clears its issue', () => {
    const product = { externalId: 'demo-product-1', title: 'Hoodie — Black', sku: 'SP-0001', priceMinor: 4999, currency: 'GBP', imageUrl: null, active: true };
    const item = feedItemOf(product, {});
    const issues = auditItem(item);
    expect(issues.map((issue) => issue.type)).toEqual(['missing_description', 'missing_link', 'missing_image', 'missing_brand', 'missing_identifier']);
    const suggestions = ruleSuggestions(product, item, issues, { linkTemplate: 'https://shop.example/p/{id}', defaultBrand: 'Northwind' });
    expect(Object.fromEntries(suggestions.map((suggestion) => [suggestion.attribute, suggestion.value]))).toEqual({
      brand: 'Northwind',
      description: 'Hoodie - Black by Northwind.',
      link: 'https://shop.example/p/demo-product-1',
      mpn: 'SP-0001',
    });
    const accepted = feedItemOf(product, Object.fromEntries(suggestions.map((suggestion) => [suggestion.attribute, suggestion.value])));
    // With the brand accepted, the title lacks it: the next round suggests the brand-first title.
    expect(auditItem(accepted).map((issue) => issue.type)).toEqual(['title_structure', 'missing_image']);
    expect(ruleSuggestions(product, accepted, auditItem(accepted), { linkTemplate: '', defaultBrand: 'Northwind' })).toEqual([{ attribute: 'title', value: 'Northwind Hoodie - Black', source: 'rules' }]);
  });
});

describe('feed export', () => {
  const tricky: FeedItem = { ...complete, id: 'p&2', title: 'Northwind "Tom & Jerry" <Mug> \u0007 - White', mpn: 'M\t1', gtin: '' };

  it('RSS 2.0 with the g: namespace: valid XML, required elements, special characters escaped, empty values left out', () => {
    const xml = feedXml({ title: 'Shop & Co', link: 'https://shop.example' }, [complete, tricky]);
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(xml);
    expect(parsed.rss['@_version']).toBe('2.0');
    expect(parsed.rss['@_xmlns:g']).toBe(GOOGLE_NAMESPACE);
    expect(parsed.rss.channel.title).toBe('Shop & Co');
    const [first, second] = parsed.rss.channel.item;
    for (const name of ['id', 'title', 'description', 'link', 'image_link', 'availability', 'price', 'brand', 'gtin', 'condition']) expect(first[`g:${name}`], name).toBeTruthy();
    expect(first['g:price']).toBe('59.99 GBP');
    expect(second['g:id']).toBe('p&2');
    expect(second['g:title']).toBe('Northwind "Tom & Jerry" <Mug>  - White');
    expect(second['g:gtin']).toBeUndefined();
  });

  it('TSV: a header row of attribute names, one row per product, no tab or line break inside a cell', () => {
    const lines = feedTsv([complete, tricky]).trimEnd().split('\n');
    expect(lines[0]!.split('\t')).toEqual(['id', 'title', 'description', 'link', 'image_link', 'availability', 'price', 'brand', 'gtin', 'mpn', 'condition']);
    expect(lines).toHaveLength(3);
    expect(lines[2]!.split('\t')).toHaveLength(11);
    expect(lines[2]!.split('\t')[9]).toBe('M 1');
  });
});
