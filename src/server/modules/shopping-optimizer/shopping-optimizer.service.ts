import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  FEED_DESCRIPTION_MAX, FEED_ISSUE_TYPES, FEED_TITLE_MAX, feedAuditInput,
  type AuditedProduct, type AuditRow, type AuditSort, type FeedAttribute, type FeedAuditInput, type FeedAuditOutput, type FeedIssueType, type FeedSuggestion,
} from '../../../shared/shopping-optimizer.ts';
import { AppError } from '../../errors.ts';
import { Product, type ProductEntity } from '../commerce/product.entity.ts';
import type { LlmProvider } from '../llm/llm-provider.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { feedTsv, feedXml } from './feed-export.ts';
import { auditItem, cleanText, feedItemOf, ruleSuggestions, scoreOf, trimToLimit, type CatalogueProduct, type FeedDefaults, type Overrides } from './feed-rules.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { pageCheckIssues, pageCheckStateOf } from './page-check.ts';
import { ShoppingFeedOverride, ShoppingFeedSettings, ShoppingPageCheck, type ShoppingFeedSettingsEntity, type ShoppingPageCheckEntity } from './shopping-optimizer.entities.ts';
import { productAdsOf, type StoreOfAds } from './product-ads.ts';
import type { PageCheckResult } from '../../../shared/shopping-optimizer.ts';

export const PRODUCT_NOT_FOUND_MESSAGE = 'Product not found';
export const FEED_NOT_FOUND_MESSAGE = 'Feed not found';

type StoreRef = Pick<StoreEntity, 'id' | 'name'>;

function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** The store's feed settings, created (with a new secret) on first use. */
export async function feedSettingsOf(em: EntityManager, store: StoreRef): Promise<ShoppingFeedSettingsEntity> {
  const found = await em.findOne(ShoppingFeedSettings, { store: store.id });
  if (found) return found;
  await em.getConnection().execute(
    `insert into shopping_feed_settings (store_id, secret, created_at, updated_at) values (?, ?, now(), now()) on conflict (store_id) do nothing`,
    [store.id, newSecret()],
  );
  return em.findOneOrFail(ShoppingFeedSettings, { store: store.id }, { refresh: true });
}

export function feedToken(settings: Pick<ShoppingFeedSettingsEntity, 'secret'>, storeId: number): string {
  return `${storeId}-${settings.secret}`;
}

export async function regenerateFeedSecret(em: EntityManager, store: StoreRef): Promise<ShoppingFeedSettingsEntity> {
  const settings = await feedSettingsOf(em, store);
  settings.secret = newSecret();
  await em.flush();
  return settings;
}

export async function updateFeedDefaults(em: EntityManager, store: StoreRef, defaults: FeedDefaults): Promise<ShoppingFeedSettingsEntity> {
  const settings = await feedSettingsOf(em, store);
  settings.linkTemplate = defaults.linkTemplate;
  settings.defaultBrand = defaults.defaultBrand;
  await em.flush();
  return settings;
}

type FeedProduct = CatalogueProduct & { id: number };

/**
 * The products a feed carries: the active ones (drafts and archived products are not for sale). Plain
 * rows, not entities: a store of 20,000 products is read on every page of the optimizer's list.
 */
async function feedProducts(em: EntityManager, storeId: number): Promise<FeedProduct[]> {
  const rows = await sqlRunner(em).rows<FeedProduct>(
    `select id::int as id, external_id as "externalId", title, sku, price_minor::float8 as "priceMinor", currency::text as currency, image_url as "imageUrl", active
       from products where store_id = $1 and active order by id`,
    [storeId],
  );
  return rows;
}

async function overridesByProduct(em: EntityManager, storeId: number): Promise<Map<number, Overrides>> {
  const rows = await em.find(ShoppingFeedOverride, { store: storeId });
  const map = new Map<number, Overrides>();
  for (const row of rows) {
    const overrides = map.get(row.productId) ?? {};
    overrides[row.attribute] = row.value;
    map.set(row.productId, overrides);
  }
  return map;
}

/** The last page check's result of each product whose page was read. */
async function pageResultsByProduct(em: EntityManager, storeId: number): Promise<Map<number, PageCheckResult>> {
  const check = await em.findOne(ShoppingPageCheck, { store: storeId }, { refresh: true });
  return new Map((check?.results ?? []).map((result) => [result.productId, result]));
}

function auditProduct(product: FeedProduct, overrides: Overrides, defaults: FeedDefaults, page?: PageCheckResult): AuditedProduct {
  const item = feedItemOf(product, overrides);
  const issues = [...auditItem(item), ...(page ? pageCheckIssues(page) : [])];
  return {
    productId: product.id,
    offerId: product.externalId,
    title: item.title,
    score: scoreOf(issues),
    issues,
    suggestions: ruleSuggestions(product, item, issues, defaults),
    overrides,
    active: product.active,
  };
}

interface WholeAudit {
  audited: AuditedProduct[];
  totals: Partial<Record<FeedIssueType, number>>;
  averageScore: number | null;
  check: ShoppingPageCheckEntity | null;
}

/** Every active product of the store against Google's specification, with totals by issue type. */
async function auditAll(em: EntityManager, store: StoreRef): Promise<WholeAudit> {
  const settings = await feedSettingsOf(em, store);
  const [products, overrides, check] = await Promise.all([
    feedProducts(em, store.id),
    overridesByProduct(em, store.id),
    em.findOne(ShoppingPageCheck, { store: store.id }, { refresh: true }),
  ]);
  const pages = new Map((check?.results ?? []).map((result) => [result.productId, result]));
  const audited = products.map((product) => auditProduct(product, overrides.get(product.id) ?? {}, settings, pages.get(product.id)));
  const counts = new Map<FeedIssueType, number>();
  for (const product of audited) for (const type of new Set(product.issues.map((issue) => issue.type))) counts.set(type, (counts.get(type) ?? 0) + 1);
  const totals: Partial<Record<FeedIssueType, number>> = {};
  for (const type of FEED_ISSUE_TYPES) if (counts.get(type)) totals[type] = counts.get(type);
  const averageScore = audited.length ? Math.round(audited.reduce((sum, product) => sum + product.score, 0) / audited.length) : null;
  return { audited, totals, averageScore, check };
}

type AuditFilter = { issue: FeedIssueType | null; search: string };

function matchesFilter(filter: AuditFilter): (product: AuditedProduct) => boolean {
  const needle = filter.search.trim().toLowerCase();
  return (product) =>
    (!filter.issue || product.issues.some((issue) => issue.type === filter.issue)) &&
    (!needle || product.title.toLowerCase().includes(needle) || product.offerId.toLowerCase().includes(needle));
}

const titleCollator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

function compareRows(sort: AuditSort): (a: AuditRow, b: AuditRow) => number {
  switch (sort) {
    case 'title':
      return (a, b) => titleCollator.compare(a.title, b.title);
    case 'issues':
      return (a, b) => a.issues.length - b.issues.length;
    case 'spend':
      return (a, b) => (a.ads?.costMinor ?? 0) - (b.ads?.costMinor ?? 0);
    default:
      return (a, b) => a.score - b.score;
  }
}

/**
 * One page of the store's audited products (filtered, sorted), each with its Google Ads shopping figures
 * over the window; totals, average and the bulk counts over every product (or every match).
 */
export async function storeAudit(em: EntityManager, store: StoreRef & StoreOfAds, input: FeedAuditInput, now: Date = new Date()): Promise<FeedAuditOutput> {
  const query = feedAuditInput.parse(input);
  const [whole, ads] = await Promise.all([auditAll(em, store), productAdsOf(em, store, query.days, now)]);
  const rows: AuditRow[] = whole.audited.filter(matchesFilter(query)).map((product) => ({ ...product, ads: ads.byItem.get(product.offerId.toLowerCase()) ?? null }));
  const matched = new Set(whole.audited.map((product) => product.offerId.toLowerCase()).filter((item) => ads.byItem.has(item)));
  const compare = compareRows(query.sort);
  const sign = query.direction === 'asc' ? 1 : -1;
  rows.sort((a, b) => sign * compare(a, b) || a.productId - b.productId);
  const pages = Math.max(1, Math.ceil(rows.length / query.pageSize));
  const page = Math.min(query.page, pages);
  const withSuggestions = rows.filter((product) => product.suggestions.length > 0);
  return {
    products: rows.slice((page - 1) * query.pageSize, page * query.pageSize),
    matching: rows.length,
    page,
    pageSize: query.pageSize,
    productCount: whole.audited.length,
    suggestionCount: withSuggestions.reduce((sum, product) => sum + product.suggestions.length, 0),
    productsWithSuggestions: withSuggestions.length,
    totals: whole.totals,
    averageScore: whole.averageScore,
    adsPerformance: { ...ads.performance, unmatchedItems: ads.byItem.size - matched.size },
    pageCheck: pageCheckStateOf(whole.check),
  };
}

async function productOfStore(em: EntityManager, storeId: number, productId: number): Promise<ProductEntity> {
  const product = await em.findOne(Product, { store: storeId, id: productId });
  if (!product) throw new AppError('NOT_FOUND', PRODUCT_NOT_FOUND_MESSAGE);
  return product;
}

async function upsertOverride(em: EntityManager, storeId: number, productId: number, attribute: FeedAttribute, value: string, source: 'rules' | 'llm' | 'user') {
  await em.getConnection().execute(
    `insert into shopping_feed_overrides (store_id, product_id, attribute, value, source, updated_at) values (?, ?, ?, ?, ?, now())
     on conflict (store_id, product_id, attribute) do update set value = excluded.value, source = excluded.source, updated_at = now()`,
    [storeId, productId, attribute, value, source],
  );
}

export async function setOverride(em: EntityManager, store: StoreRef, input: { productId: number; attribute: FeedAttribute; value: string; source?: 'rules' | 'llm' | 'user' }): Promise<AuditedProduct> {
  const product = await productOfStore(em, store.id, input.productId);
  validateOverride(input.attribute, input.value);
  await upsertOverride(em, store.id, product.id, input.attribute, input.value, input.source ?? 'user');
  return productAudit(em, store, product);
}

export async function removeOverride(em: EntityManager, store: StoreRef, input: { productId: number; attribute: FeedAttribute }): Promise<AuditedProduct> {
  const product = await productOfStore(em, store.id, input.productId);
  await em.nativeDelete(ShoppingFeedOverride, { store: store.id, productId: product.id, attribute: input.attribute });
  return productAudit(em, store, product);
}

async function productAudit(em: EntityManager, store: StoreRef, product: FeedProduct): Promise<AuditedProduct> {
  const settings = await feedSettingsOf(em, store);
  const [rows, pages] = await Promise.all([em.find(ShoppingFeedOverride, { store: store.id, productId: product.id }, { refresh: true }), pageResultsByProduct(em, store.id)]);
  return auditProduct(product, Object.fromEntries(rows.map((row) => [row.attribute, row.value])), settings, pages.get(product.id));
}

/** Values the feed would refuse are refused here, with the reason. */
function validateOverride(attribute: FeedAttribute, value: string) {
  const fail = (message: string) => {
    throw new AppError('BAD_REQUEST', message, { fieldErrors: [{ field: 'value', message }] });
  };
  if (attribute === 'title' && value.length > FEED_TITLE_MAX) fail(`A title can have at most ${FEED_TITLE_MAX} characters`);
  if (attribute === 'description' && value.length > FEED_DESCRIPTION_MAX) fail(`A description can have at most ${FEED_DESCRIPTION_MAX} characters`);
  if (attribute === 'condition' && !['new', 'refurbished', 'used'].includes(value)) fail('Condition must be new, refurbished or used');
  if ((attribute === 'link' || attribute === 'image_link') && !/^https?:\/\/\S+$/i.test(value)) fail('Enter an address starting with https:// or http://');
  if (attribute === 'gtin' && !/^\d{8}$|^\d{12,14}$/.test(value)) fail('A GTIN has 8, 12, 13 or 14 digits');
}

/** Accepts the rule suggestions of the given products (all when none given) for the given attributes. */
export async function acceptSuggestions(
  em: EntityManager,
  store: StoreRef,
  input: { productIds?: number[]; filter?: AuditFilter; attributes: FeedAttribute[] },
): Promise<{ accepted: number }> {
  const { audited } = await auditAll(em, store);
  const wanted = input.productIds ? new Set(input.productIds) : null;
  const matches = input.filter ? matchesFilter(input.filter) : () => true;
  const attributes = new Set(input.attributes);
  let accepted = 0;
  await em.transactional(async (tx) => {
    for (const product of audited) {
      if ((wanted && !wanted.has(product.productId)) || !matches(product)) continue;
      for (const suggestion of product.suggestions) {
        if (!attributes.has(suggestion.attribute)) continue;
        await upsertOverride(tx, store.id, product.productId, suggestion.attribute, suggestion.value, suggestion.source);
        accepted += 1;
      }
    }
  });
  return { accepted };
}

const LLM_SYSTEM_PROMPT = [
  'You improve Google Shopping product data. Answer with JSON only: {"title": "...", "description": "..."}.',
  `Title: at most ${FEED_TITLE_MAX} characters, brand first, then product type, then key attributes (colour, size, material); no promotional text, no all capitals.`,
  'Description: 2-4 factual sentences about the product only; no promotional text, no shop policies, no invented facts.',
].join(' ');

/** The rule suggestions for one product, with title and description improved by the LLM when it is configured and answers usably. */
export async function productSuggestions(em: EntityManager, store: StoreRef, productId: number, llm: LlmProvider | null): Promise<{ product: AuditedProduct; suggestions: FeedSuggestion[]; llmError: string | null }> {
  const product = await productAudit(em, store, await productOfStore(em, store.id, productId));
  if (!llm) return { product, suggestions: product.suggestions, llmError: null };
  const catalogue = await productOfStore(em, store.id, productId);
  const item = feedItemOf(catalogue, product.overrides);
  const rules = new Map(product.suggestions.map((suggestion) => [suggestion.attribute, suggestion.value]));
  let answer: string;
  try {
    answer = await llm.complete([
      { role: 'system', content: LLM_SYSTEM_PROMPT },
      {
        role: 'user',
        content: JSON.stringify({ title: rules.get('title') ?? item.title, description: rules.get('description') ?? item.description, brand: rules.get('brand') ?? item.brand, price: `${catalogue.priceMinor / 100} ${catalogue.currency}` }),
      },
    ]);
  } catch (error) {
    return { product, suggestions: product.suggestions, llmError: error instanceof Error ? error.message : String(error) };
  }
  const improved = parseLlmAnswer(answer);
  const suggestions = product.suggestions.filter((suggestion) => !(improved[suggestion.attribute as 'title' | 'description']));
  for (const attribute of ['title', 'description'] as const) {
    const value = improved[attribute];
    if (value && value !== item[attribute]) suggestions.push({ attribute, value, source: 'llm' });
  }
  return { product, suggestions, llmError: null };
}

/** The model's JSON, each value put through the rules the audit applies to titles and descriptions. */
export function parseLlmAnswer(answer: string): { title?: string; description?: string } {
  const json = /\{[\s\S]*\}/.exec(answer)?.[0];
  if (!json) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return {};
  }
  const result: { title?: string; description?: string } = {};
  // The audit's own clean-up: promotions out, capitals tamed, then the length limit; nothing left -> no suggestion.
  const usable = (value: unknown, limit: number) => {
    if (typeof value !== 'string') return undefined;
    const text = trimToLimit(cleanText(value), limit);
    return text || undefined;
  };
  const record = parsed as Record<string, unknown>;
  const title = usable(record.title, FEED_TITLE_MAX);
  const description = usable(record.description, FEED_DESCRIPTION_MAX);
  if (title) result.title = title;
  if (description) result.description = description;
  return result;
}

/** The feed of the store whose token this is, or NOT_FOUND (a wrong secret says no more than an unknown store). */
export async function feedByToken(em: EntityManager, token: string, format: 'xml' | 'tsv', origin: string | null): Promise<{ contentType: string; body: string }> {
  const match = /^(\d{1,10})-([A-Za-z0-9_-]{16,64})$/.exec(token);
  if (!match) throw new AppError('NOT_FOUND', FEED_NOT_FOUND_MESSAGE);
  const storeId = Number(match[1]);
  const settings = await em.findOne(ShoppingFeedSettings, { store: storeId }, { populate: ['store'] });
  const given = Buffer.from(match[2]!);
  const expected = Buffer.from(settings?.secret ?? '');
  if (!settings || given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AppError('NOT_FOUND', FEED_NOT_FOUND_MESSAGE);
  const [products, overrides] = await Promise.all([feedProducts(em, storeId), overridesByProduct(em, storeId)]);
  const items = products.map((product) => feedItemOf(product, overrides.get(product.id) ?? {}));
  if (format === 'tsv') return { contentType: 'text/tab-separated-values; charset=utf-8', body: feedTsv(items) };
  const link = /^https?:\/\/[^/]+/i.exec(settings.linkTemplate)?.[0] ?? origin ?? 'https://example.invalid';
  return { contentType: 'application/xml; charset=utf-8', body: feedXml({ title: settings.store.name, link }, items) };
}
