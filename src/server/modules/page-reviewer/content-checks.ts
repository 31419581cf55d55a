import { load, type CheerioAPI } from 'cheerio';
import type { Finding, FindingSeverity } from '../../../shared/page-reviewer.ts';
import { fleschReadingEase } from './scoring.ts';

// The checks read from the page's HTML (parsed with cheerio, as served, before scripts run). Each
// gives one finding, 'pass' when nothing needs fixing; the client explains each code (why it matters
// for conversion, how to fix it).

export const TITLE_LENGTH = { min: 30, max: 60 } as const;
export const META_DESCRIPTION_LENGTH = { min: 70, max: 160 } as const;
/** Links checked for being broken, at most (the first ones on the page). */
export const MAX_LINKS_CHECKED = 20;

const clip = (text: string, length = 120) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

function lengthFinding(code: 'title_length' | 'meta_description', element: string, text: string | undefined, range: { min: number; max: number }, missing: FindingSeverity): Finding {
  const category = 'seo';
  if (text === undefined || text.trim() === '') return { code, category, severity: missing, evidence: { element, value: null } };
  const trimmed = text.trim();
  const severity: FindingSeverity = trimmed.length < range.min || trimmed.length > range.max ? 'low' : 'pass';
  return { code, category, severity, evidence: { element, value: `${trimmed.length}: ${clip(trimmed)}` } };
}

function h1Finding($: CheerioAPI): Finding {
  const headings = $('h1');
  const texts = headings.map((_index, element) => $(element).text().trim()).get();
  if (texts.length === 1) return { code: 'h1', category: 'seo', severity: 'pass', evidence: { element: 'h1', value: clip(texts[0]!) } };
  return { code: 'h1', category: 'seo', severity: texts.length === 0 ? 'high' : 'low', evidence: { element: 'h1', value: String(texts.length) } };
}

function jsonLdNodes($: CheerioAPI): Record<string, unknown>[] {
  const nodes: Record<string, unknown>[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const node = value as Record<string, unknown>;
      nodes.push(node);
      if (node['@graph']) visit(node['@graph']);
    }
  };
  $('script[type="application/ld+json"]').each((_index, element) => {
    try {
      visit(JSON.parse($(element).text()));
    } catch {
      // Invalid JSON-LD counts as none.
    }
  });
  return nodes;
}

const hasType = (node: Record<string, unknown>, type: string) => {
  const types = Array.isArray(node['@type']) ? node['@type'] : [node['@type']];
  return types.some((entry) => typeof entry === 'string' && entry.replace(/^https?:\/\/schema\.org\//, '') === type);
};

function productFinding(nodes: Record<string, unknown>[]): Finding {
  const product = nodes.find((node) => hasType(node, 'Product'));
  if (!product) return { code: 'product_jsonld', category: 'conversion', severity: 'high', evidence: { element: 'script[type="application/ld+json"]', value: null } };
  const offers = ([] as unknown[]).concat(product.offers ?? []).filter((offer): offer is Record<string, unknown> => !!offer && typeof offer === 'object');
  const offer = offers[0];
  const price = offer ? (offer.price ?? offer.lowPrice) : undefined;
  const missing = [price === undefined ? 'price' : null, offer?.availability === undefined ? 'availability' : null].filter(Boolean);
  return {
    code: 'product_jsonld',
    category: 'conversion',
    severity: missing.length === 0 ? 'pass' : 'medium',
    evidence: { element: 'Product › Offer', value: missing.length === 0 ? `${String(price)} ${String(offer?.priceCurrency ?? '')} · ${String(offer?.availability).replace(/^https?:\/\/schema\.org\//, '')}`.trim() : `missing: ${missing.join(', ')}` },
  };
}

function imageAltFinding($: CheerioAPI): Finding {
  const images = $('img');
  const withoutAlt = images.filter((_index, element) => $(element).attr('alt') === undefined);
  const first = withoutAlt.first().attr('src');
  const severity: FindingSeverity = withoutAlt.length === 0 ? 'pass' : withoutAlt.length / Math.max(1, images.length) > 0.5 ? 'medium' : 'low';
  return { code: 'image_alt', category: 'accessibility', severity, evidence: { element: first ? `img[src="${clip(first, 80)}"]` : 'img', value: `${withoutAlt.length}/${images.length}` } };
}

export const TRUST_SIGNALS = {
  reviews: /\b(reviews?|ratings?|rated|testimonials?|stars?|opiniones|reseñas|avis|bewertungen)\b|★/i,
  returns: /\b(returns?|refunds?|money[- ]back|free exchanges?|devoluci[oó]n|retours?|rembours\w*|rückgabe|rücksendung)\b/i,
  secureCheckout: /\b(secure (checkout|payment)s?|ssl|encrypted|guarantee[ds]?|pago seguro|paiement s[ée]curis[ée]|sichere zahlung)\b/i,
} as const;

function trustFinding($: CheerioAPI, nodes: Record<string, unknown>[], text: string): Finding {
  const found = (Object.keys(TRUST_SIGNALS) as (keyof typeof TRUST_SIGNALS)[]).filter((signal) =>
    TRUST_SIGNALS[signal].test(text) || (signal === 'reviews' && nodes.some((node) => node.aggregateRating || hasType(node, 'AggregateRating'))),
  );
  const severity: FindingSeverity = found.length >= 3 ? 'pass' : found.length === 2 ? 'low' : found.length === 1 ? 'medium' : 'high';
  return { code: 'trust_signals', category: 'trust', severity, evidence: { element: null, value: found.length ? found.join(', ') : null } };
}

function viewportFinding($: CheerioAPI): Finding {
  const content = $('meta[name="viewport"]').attr('content');
  const ok = content !== undefined && /width\s*=\s*device-width/i.test(content);
  return { code: 'viewport_meta', category: 'accessibility', severity: ok ? 'pass' : 'high', evidence: { element: 'meta[name="viewport"]', value: content ?? null } };
}

/** The visible text of the main content: <main> (or the body) without scripts, navigation, header and footer. */
export function mainText($: CheerioAPI): string {
  const root = $('main').length ? $('main').first().clone() : $('body').clone();
  root.find('script, style, noscript, template, nav, header, footer, svg').remove();
  root.find('p, div, li, h1, h2, h3, h4, h5, h6, br, td').append(' ');
  return root.text().replace(/\s+/g, ' ').trim();
}

function readabilityFinding(text: string): { finding: Finding; score: number | null } {
  const flesch = fleschReadingEase(text);
  if (!flesch || flesch.words < 30) return { finding: { code: 'readability', category: 'seo', severity: 'low', evidence: { element: 'main', value: `${flesch?.words ?? 0} words` } }, score: flesch?.score ?? null };
  const severity: FindingSeverity = flesch.score < 30 ? 'medium' : flesch.score < 50 ? 'low' : 'pass';
  return { finding: { code: 'readability', category: 'seo', severity, evidence: { element: 'main', value: String(flesch.score) } }, score: flesch.score };
}

/** The page's distinct http(s) links (absolute), in page order, at most `limit`. */
export function pageLinks($: CheerioAPI, baseUrl: string, limit = MAX_LINKS_CHECKED): string[] {
  const links = new Set<string>();
  $('a[href]').each((_index, element) => {
    if (links.size >= limit) return false;
    try {
      const url = new URL($(element).attr('href')!, baseUrl);
      url.hash = '';
      if (url.protocol === 'http:' || url.protocol === 'https:') links.add(url.href);
    } catch {
      // An unparseable href is not a link we can check.
    }
    return undefined;
  });
  return [...links];
}

export interface ContentCheckResult {
  findings: Finding[];
  links: string[];
  fleschReadingEase: number | null;
  /** The first H1 and the title, for the optional AI suggestions. */
  headline: string | null;
  title: string | null;
}

export function checkContent(html: string, baseUrl: string): ContentCheckResult {
  const $ = load(html);
  const nodes = jsonLdNodes($);
  const text = mainText($);
  const readability = readabilityFinding(text);
  const title = $('head > title').first().text() || $('title').first().text();
  return {
    findings: [
      lengthFinding('title_length', 'title', title || undefined, TITLE_LENGTH, 'high'),
      lengthFinding('meta_description', 'meta[name="description"]', $('meta[name="description"]').attr('content'), META_DESCRIPTION_LENGTH, 'medium'),
      h1Finding($),
      readability.finding,
      productFinding(nodes),
      trustFinding($, nodes, `${$('body').text()} ${$('img').map((_index, element) => $(element).attr('alt') ?? '').get().join(' ')}`),
      imageAltFinding($),
      viewportFinding($),
    ],
    links: pageLinks($, baseUrl),
    fleschReadingEase: readability.score,
    headline: $('h1').first().text().trim() || null,
    title: title.trim() || null,
  };
}
