import {
  FEED_DESCRIPTION_MAX, FEED_ID_MAX, FEED_TITLE_MAX,
  type FeedAttribute, type FeedIssue, type FeedIssueType, type FeedSuggestion,
} from '../../../shared/shopping-optimizer.ts';

// The audit rules of the shopping feed optimizer, pure. Source: Google Merchant Center's "Product data
// specification" (https://support.google.com/merchants/answer/7052112): id up to 50 characters; title
// up to 150, no promotional text, no all-capital letters; description up to 5,000, describing only the
// product; link and image_link required; price required; brand required for new products with a brand;
// gtin for products that have one, else mpn; condition (new / refurbished / used). GTIN check digits:
// GS1 General Specifications, "Check digit calculation" (mod 10, weights 3 and 1 from the right).

/** One product as the feed sends it: the catalogue's values with the accepted overrides applied. */
export interface FeedItem {
  id: string;
  title: string;
  description: string;
  link: string;
  imageLink: string;
  availability: 'in_stock' | 'out_of_stock';
  /** Minor units. */
  priceMinor: number;
  currency: string;
  brand: string;
  gtin: string;
  mpn: string;
  condition: string;
}

/** What the catalogue holds of a product (products table: no description, brand or identifiers). */
export interface CatalogueProduct {
  externalId: string;
  title: string;
  sku?: string | null;
  priceMinor: number;
  currency: string;
  imageUrl?: string | null;
  active: boolean;
}

export interface FeedDefaults {
  /** The shop's product address with {id} / {sku}, '' when unknown. */
  linkTemplate: string;
  /** The store's own brand, '' when unknown. */
  defaultBrand: string;
}

export type Overrides = Partial<Record<FeedAttribute, string>>;

/** The catalogue's product with the store's accepted overrides: exactly what the feed sends. */
export function feedItemOf(product: CatalogueProduct, overrides: Overrides): FeedItem {
  return {
    id: product.externalId,
    title: overrides.title ?? product.title,
    description: overrides.description ?? '',
    link: overrides.link ?? '',
    imageLink: overrides.image_link ?? product.imageUrl ?? '',
    availability: product.active ? 'in_stock' : 'out_of_stock',
    priceMinor: product.priceMinor,
    currency: product.currency,
    brand: overrides.brand ?? '',
    gtin: overrides.gtin ?? '',
    mpn: overrides.mpn ?? '',
    // Google reads a missing condition as new; we send it explicitly.
    condition: overrides.condition ?? 'new',
  };
}

/** GS1 mod-10: GTIN-8, -12 (UPC), -13 (EAN) and -14; digits only. */
export function isValidGtin(value: string): boolean {
  if (!/^\d+$/.test(value) || ![8, 12, 13, 14].includes(value.length)) return false;
  if (/^0+$/.test(value)) return false;
  const digits = [...value].map(Number);
  const check = digits.pop()!;
  let sum = 0;
  // From the right (next to the check digit): weights 3, 1, 3, 1, ...
  digits.reverse().forEach((digit, index) => {
    sum += digit * (index % 2 === 0 ? 3 : 1);
  });
  return (10 - (sum % 10)) % 10 === check;
}

const PROMOTIONAL = /\b(free (shipping|delivery)|on sale|sale|best price|cheapest|buy now|limited time|discount|clearance|hot deal|\d+ ?% off)\b|!{2,}/i;

export function hasPromotionalText(text: string): boolean {
  return PROMOTIONAL.test(text);
}

/** All capitals: at least five letters and none of them lower case. */
export function isAllCaps(text: string): boolean {
  const letters = text.replace(/[^\p{L}]/gu, '');
  return letters.length >= 5 && letters === letters.toUpperCase() && letters !== letters.toLowerCase();
}

const SEVERITY: Record<FeedIssueType, FeedIssue['severity']> = {
  missing_title: 'error',
  title_too_long: 'error',
  title_all_caps: 'warning',
  title_promotional: 'error',
  title_structure: 'warning',
  missing_description: 'error',
  description_too_long: 'error',
  description_all_caps: 'warning',
  description_promotional: 'warning',
  missing_link: 'error',
  missing_image: 'error',
  invalid_price: 'error',
  missing_brand: 'error',
  missing_identifier: 'warning',
  invalid_gtin: 'error',
  id_too_long: 'error',
  // Google disapproves both mismatches; a page that could not be read is only a risk.
  page_price_mismatch: 'error',
  page_availability_mismatch: 'error',
  page_error: 'warning',
};

const ATTRIBUTE: Record<FeedIssueType, string> = {
  missing_title: 'title', title_too_long: 'title', title_all_caps: 'title', title_promotional: 'title', title_structure: 'title',
  missing_description: 'description', description_too_long: 'description', description_all_caps: 'description', description_promotional: 'description',
  missing_link: 'link', missing_image: 'image_link', invalid_price: 'price', missing_brand: 'brand', missing_identifier: 'gtin',
  invalid_gtin: 'gtin', id_too_long: 'id', page_price_mismatch: 'price', page_availability_mismatch: 'availability', page_error: 'link',
};

export function feedIssueOf(type: FeedIssueType): FeedIssue {
  return { type, severity: SEVERITY[type], attribute: ATTRIBUTE[type] };
}

/** The problems of one feed item, in the order of FEED_ISSUE_TYPES' families (title first). */
export function auditItem(item: FeedItem): FeedIssue[] {
  const found: FeedIssueType[] = [];
  const title = item.title.trim();
  if (!title) found.push('missing_title');
  else {
    if (title.length > FEED_TITLE_MAX) found.push('title_too_long');
    if (isAllCaps(title)) found.push('title_all_caps');
    if (hasPromotionalText(title)) found.push('title_promotional');
    // Brand + product type + key attributes: the brand in the title, and more than a bare word or two.
    const brand = item.brand.trim().toLowerCase();
    if ((brand && !title.toLowerCase().includes(brand)) || title.split(/\s+/).length < 3) found.push('title_structure');
  }
  const description = item.description.trim();
  if (!description) found.push('missing_description');
  else {
    if (description.length > FEED_DESCRIPTION_MAX) found.push('description_too_long');
    if (isAllCaps(description)) found.push('description_all_caps');
    if (hasPromotionalText(description)) found.push('description_promotional');
  }
  if (!/^https?:\/\/\S+$/i.test(item.link.trim())) found.push('missing_link');
  if (!/^https?:\/\/\S+$/i.test(item.imageLink.trim())) found.push('missing_image');
  if (!(item.priceMinor > 0)) found.push('invalid_price');
  if (!item.brand.trim()) found.push('missing_brand');
  const gtin = item.gtin.trim();
  if (gtin && !isValidGtin(gtin)) found.push('invalid_gtin');
  if (!gtin && !item.mpn.trim()) found.push('missing_identifier');
  if (item.id.length > FEED_ID_MAX) found.push('id_too_long');
  return found.map(feedIssueOf);
}

/** 100, less 20 per error and 8 per warning, never below 0. */
export function scoreOf(issues: FeedIssue[]): number {
  const penalty = issues.reduce((sum, issue) => sum + (issue.severity === 'error' ? 20 : 8), 0);
  return Math.max(0, 100 - penalty);
}

/** Cut at the last word boundary that fits (no half words), without trailing punctuation. */
export function trimToLimit(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit + 1);
  const boundary = cut.lastIndexOf(' ');
  return (boundary > limit / 2 ? cut.slice(0, boundary) : text.slice(0, limit)).replace(/[\s,;:\-–—]+$/u, '');
}

function titleCase(text: string): string {
  return text.toLowerCase().replace(/(^|[^\p{L}\p{N}'’])(\p{L})/gu, (_match, before: string, letter: string) => before + letter.toUpperCase());
}

/** Promotional phrases out, capitals tamed, dashes plain, spaces single. */
export function cleanText(text: string): string {
  let cleaned = text.replace(new RegExp(PROMOTIONAL.source, 'gi'), ' ').replace(/!+/g, '');
  if (isAllCaps(cleaned)) cleaned = titleCase(cleaned);
  return cleaned.replace(/\s*[—–]\s*/g, ' - ').replace(/\s+/g, ' ').replace(/^[\s\-,]+|[\s\-,]+$/g, '').trim();
}

/** Brand first, then the cleaned title (product type and its attributes), trimmed to 150 characters. */
export function suggestedTitle(title: string, brand: string): string {
  const cleaned = cleanText(title);
  const brandName = brand.trim();
  const withBrand = brandName && !cleaned.toLowerCase().includes(brandName.toLowerCase()) ? `${brandName} ${cleaned}` : cleaned;
  return trimToLimit(withBrand, FEED_TITLE_MAX);
}

/** The cleaned description, or one built from the title and brand when there is none. */
export function suggestedDescription(description: string, title: string, brand: string): string {
  const cleaned = cleanText(description);
  if (cleaned) return trimToLimit(cleaned, FEED_DESCRIPTION_MAX);
  const name = cleanText(title);
  if (!name) return '';
  const brandName = brand.trim();
  return trimToLimit(`${name}${brandName && !name.toLowerCase().includes(brandName.toLowerCase()) ? ` by ${brandName}` : ''}.`, FEED_DESCRIPTION_MAX);
}

export function linkFromTemplate(template: string, product: Pick<CatalogueProduct, 'externalId' | 'sku'>): string {
  if (!template) return '';
  if (template.includes('{sku}') && !product.sku) return '';
  return template.replaceAll('{id}', encodeURIComponent(product.externalId)).replaceAll('{sku}', encodeURIComponent(product.sku ?? ''));
}

/** Rule suggestions for the attributes whose issues they fix (none for what rules cannot know, e.g. a GTIN). */
export function ruleSuggestions(product: CatalogueProduct, item: FeedItem, issues: FeedIssue[], defaults: FeedDefaults): FeedSuggestion[] {
  const types = new Set(issues.map((issue) => issue.type));
  const suggestions: FeedSuggestion[] = [];
  const add = (attribute: FeedAttribute, value: string, current: string) => {
    if (value && value !== current) suggestions.push({ attribute, value, source: 'rules' });
  };
  const brand = item.brand || defaults.defaultBrand;
  if (types.has('missing_brand')) add('brand', defaults.defaultBrand, item.brand);
  if (['missing_title', 'title_too_long', 'title_all_caps', 'title_promotional', 'title_structure'].some((type) => types.has(type as FeedIssueType))) {
    add('title', suggestedTitle(item.title || product.title, brand), item.title);
  }
  if (['missing_description', 'description_too_long', 'description_all_caps', 'description_promotional'].some((type) => types.has(type as FeedIssueType))) {
    add('description', suggestedDescription(item.description, item.title || product.title, brand), item.description);
  }
  if (types.has('missing_link')) add('link', linkFromTemplate(defaults.linkTemplate, product), item.link);
  // A SKU is a valid MPN only for products the store makes itself: the screen says so beside it.
  if (types.has('missing_identifier') && product.sku) add('mpn', product.sku, item.mpn);
  return suggestions;
}
