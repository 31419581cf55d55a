import { load, type CheerioAPI } from 'cheerio';
import { parsePriceText, type PriceAvailability, type PriceExtractionMethod } from '../../../shared/price-tracker.ts';

// Reading a competitor's price, currency and availability from a product page's HTML, in the order a
// page states them most reliably: schema.org JSON-LD, microdata, OpenGraph product tags, other common
// meta tags, and last the CSS selector the user set for pages that have none of these (written prices are
// read by parsePriceText, shared with the add form). Pure: HTML in,
// result out (fixtures in price-extraction.test.ts).

export interface ExtractedPrice {
  /** In minor units (cents); every currency the app converts has 2 decimals. */
  priceMinor: number;
  /** ISO 4217, upper case; null when the page does not say (the caller then assumes the own product's). */
  currency: string | null;
  availability: PriceAvailability;
  method: PriceExtractionMethod;
}

const CURRENCY_SYMBOLS: Record<string, string> = { '€': 'EUR', $: 'USD', '£': 'GBP', 'US$': 'USD', 'C$': 'CAD', 'CA$': 'CAD', 'A$': 'AUD', 'AU$': 'AUD' };

/** The ISO code a price text names ("€", "EUR", "US$"), or null. */
export function currencyOfText(text: string): string | null {
  const code = /\b([A-Z]{3})\b/.exec(text)?.[1];
  if (code && /^(EUR|USD|GBP|CAD|AUD|CHF|SEK|NOK|DKK|PLN|JPY)$/.test(code)) return code;
  for (const symbol of Object.keys(CURRENCY_SYMBOLS).sort((a, b) => b.length - a.length)) {
    if (text.includes(symbol)) return CURRENCY_SYMBOLS[symbol]!;
  }
  return null;
}

function normalCurrency(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return /^[A-Za-z]{3}$/.test(trimmed) ? trimmed.toUpperCase() : currencyOfText(trimmed);
}

/** schema.org availability ("https://schema.org/InStock", "InStock", "out of stock") as ours. */
export function availabilityOf(value: unknown): PriceAvailability {
  if (typeof value !== 'string' || value.trim() === '') return 'unknown';
  const word = value.trim().replace(/^https?:\/\/schema\.org\//i, '').toLowerCase().replace(/[\s_-]/g, '');
  if (['instock', 'instoreonly', 'onlineonly', 'limitedavailability', 'presale', 'preorder', 'backorder'].includes(word)) return 'in_stock';
  if (['outofstock', 'soldout', 'discontinued'].includes(word)) return 'out_of_stock';
  return 'unknown';
}

/** A JSON-LD or meta price: numbers as they are (19.99), strings by parsePriceText. */
function priceOfValue(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value * 100);
  if (typeof value === 'string') return /^\d+(\.\d+)?$/.test(value.trim()) ? Math.round(Number(value.trim()) * 100) : parsePriceText(value);
  return null;
}

type JsonObject = Record<string, unknown>;

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

function typesOf(node: JsonObject): string[] {
  return asArray(node['@type']).filter((type): type is string => typeof type === 'string').map((type) => type.replace(/^https?:\/\/schema\.org\//i, ''));
}

/** Every object in a JSON-LD document, walking @graph, arrays and nested values. */
function jsonLdNodes(value: unknown, found: JsonObject[] = [], depth = 0): JsonObject[] {
  if (depth > 12) return found;
  if (Array.isArray(value)) for (const item of value) jsonLdNodes(item, found, depth + 1);
  else if (value && typeof value === 'object') {
    found.push(value as JsonObject);
    for (const item of Object.values(value)) if (item && typeof item === 'object') jsonLdNodes(item, found, depth + 1);
  }
  return found;
}

function offerPrice(offer: JsonObject): { priceMinor: number; currency: string | null; availability: PriceAvailability } | null {
  const spec = asArray(offer.priceSpecification).find((item): item is JsonObject => !!item && typeof item === 'object');
  const price = priceOfValue(offer.price) ?? priceOfValue(offer.lowPrice) ?? (spec ? priceOfValue(spec.price) : null);
  if (price === null) return null;
  return { priceMinor: price, currency: normalCurrency(offer.priceCurrency) ?? (spec ? normalCurrency(spec.priceCurrency) : null), availability: availabilityOf(offer.availability) };
}

function fromJsonLd($: CheerioAPI): ExtractedPrice | null {
  const documents: unknown[] = [];
  $('script[type="application/ld+json"]').each((_index, element) => {
    try {
      documents.push(JSON.parse($(element).text()));
    } catch {
      // A broken block on the page; the others may still hold the product.
    }
  });
  const nodes = jsonLdNodes(documents);
  const products = nodes.filter((node) => typesOf(node).some((type) => type === 'Product' || type === 'ProductGroup'));
  const offerSources = products.length > 0 ? products.flatMap((product) => asArray(product.offers)) : nodes.filter((node) => typesOf(node).some((type) => type === 'Offer' || type === 'AggregateOffer'));
  for (const candidate of offerSources) {
    if (!candidate || typeof candidate !== 'object') continue;
    const offer = candidate as JsonObject;
    // An AggregateOffer may list its offers; its own lowPrice is the price to compare.
    const found = offerPrice(offer) ?? asArray(offer.offers).map((inner) => (inner && typeof inner === 'object' ? offerPrice(inner as JsonObject) : null)).find((item) => item !== null);
    if (found) return { ...found, method: 'json_ld' };
  }
  return null;
}

function attributeOrText($: CheerioAPI, selector: string): string | null {
  const element = $(selector).first();
  if (element.length === 0) return null;
  return element.attr('content') ?? element.attr('href') ?? element.attr('value') ?? element.text();
}

function fromMicrodata($: CheerioAPI): ExtractedPrice | null {
  const priceText = attributeOrText($, '[itemprop="price"]') ?? attributeOrText($, '[itemprop="lowPrice"]');
  if (priceText === null) return null;
  const priceMinor = priceOfValue(priceText);
  if (priceMinor === null) return null;
  return {
    priceMinor,
    currency: normalCurrency(attributeOrText($, '[itemprop="priceCurrency"]')) ?? currencyOfText(priceText),
    availability: availabilityOf(attributeOrText($, '[itemprop="availability"]')),
    method: 'microdata',
  };
}

function metaContent($: CheerioAPI, ...names: string[]): string | null {
  for (const name of names) {
    const content = $(`meta[property="${name}"], meta[name="${name}"]`).first().attr('content');
    if (content !== undefined && content.trim() !== '') return content;
  }
  return null;
}

function fromOpenGraph($: CheerioAPI): ExtractedPrice | null {
  const amount = metaContent($, 'product:price:amount', 'og:price:amount', 'product:sale_price:amount');
  const priceMinor = amount === null ? null : priceOfValue(amount);
  if (priceMinor === null) return null;
  return {
    priceMinor,
    currency: normalCurrency(metaContent($, 'product:price:currency', 'og:price:currency', 'product:sale_price:currency')),
    availability: availabilityOf(metaContent($, 'product:availability', 'og:availability')),
    method: 'open_graph',
  };
}

/** Other meta tags shops set: Twitter's product card ("twitter:data1" = "$19.99" beside label1 "Price") and plain price metas. */
function fromCommonMeta($: CheerioAPI): ExtractedPrice | null {
  const candidates: string[] = [];
  for (const index of [1, 2]) {
    const label = metaContent($, `twitter:label${index}`);
    const data = metaContent($, `twitter:data${index}`);
    if (data && (!label || /price|preis|precio|prix/i.test(label))) candidates.push(data);
  }
  const plain = metaContent($, 'price', 'product:price', 'twitter:price');
  if (plain) candidates.push(plain);
  for (const text of candidates) {
    const priceMinor = priceOfValue(text);
    if (priceMinor !== null) {
      return { priceMinor, currency: currencyOfText(text) ?? normalCurrency(metaContent($, 'priceCurrency', 'currency')), availability: availabilityOf(metaContent($, 'availability', 'product:availability')), method: 'meta' };
    }
  }
  return null;
}

function fromSelector($: CheerioAPI, selector: string): ExtractedPrice | null {
  let text: string | null;
  try {
    text = attributeOrText($, selector);
  } catch {
    return null; // A selector cheerio cannot parse finds nothing; the form validates it before saving.
  }
  if (text === null) return null;
  const priceMinor = parsePriceText(text);
  if (priceMinor === null) return null;
  return { priceMinor, currency: currencyOfText(text), availability: textAvailability($), method: 'css_selector' };
}

/** Pages without structured data often say "out of stock" in words. */
function textAvailability($: CheerioAPI): PriceAvailability {
  const body = $('body').text().toLowerCase();
  if (/out of stock|sold out|agotado|rupture de stock|épuisé|ausverkauft|nicht (mehr )?verfügbar/.test(body)) return 'out_of_stock';
  return 'unknown';
}

/** Whether cheerio accepts `selector` (the add and edit forms refuse one it cannot parse). */
export function isUsableSelector(selector: string): boolean {
  try {
    load('<p></p>')(selector);
    return true;
  } catch {
    return false;
  }
}

/** The page's price by the first method that finds one; null when none does. */
export function extractPrice(html: string, cssSelector?: string | null): ExtractedPrice | null {
  const $ = load(html);
  return fromJsonLd($) ?? fromMicrodata($) ?? fromOpenGraph($) ?? fromCommonMeta($) ?? (cssSelector ? fromSelector($, cssSelector) : null);
}
