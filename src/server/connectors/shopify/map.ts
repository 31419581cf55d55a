import type { OrderStatus } from '../../../shared/commerce.ts';
import type { AttributionFields } from '../../modules/commerce/channel.ts';
import type { IngestOrder, IngestOrderLine, IngestProduct, IngestRefund } from '../../modules/commerce/ingest.ts';
import { decimalToMinor } from '../money.ts';
import { SHOPIFY, type ShopifyMoneyBag, type ShopifyOrderNode, type ShopifyProductNode } from './client.ts';

// Shopify records -> ingest rows. Amounts are the shop's money (the store's reporting currency), never
// the presentment (buyer's) currency. Ids are the numeric ids (GraphQL's legacyResourceId), which are
// also what the REST webhooks send, so both paths write the same rows.

/** The numeric tail of a global id ("gid://shopify/Order/123" -> "123"). */
export function numericIdOf(id: string | number): string {
  const text = String(id);
  return text.slice(text.lastIndexOf('/') + 1);
}

function shopMinor(bag: ShopifyMoneyBag | null | undefined, currency: string): number {
  return bag ? decimalToMinor(bag.shopMoney.amount, currency, SHOPIFY) : 0;
}

/**
 * Status from the cancellation and the financial status. Refunded and partially refunded orders
 * map to 'paid': ingest derives the refund states from the refund rows themselves.
 */
export function shopifyStatus(financialStatus: string | null | undefined, cancelledAt: string | null | undefined): OrderStatus {
  if (cancelledAt) return 'cancelled';
  switch ((financialStatus ?? '').toUpperCase()) {
    case 'PENDING':
      return 'pending';
    case 'VOIDED':
    case 'EXPIRED':
      return 'cancelled';
    // PAID, PARTIALLY_PAID, AUTHORIZED (captured later), PARTIALLY_REFUNDED, REFUNDED, and anything new.
    default:
      return 'paid';
  }
}

type Visit = NonNullable<NonNullable<ShopifyOrderNode['customerJourneySummary']>['lastVisit']>;

/** The last visit before the order (last click), else the first; click ids are read from its landing page by ingest. */
export function shopifyAttribution(summary: ShopifyOrderNode['customerJourneySummary']): AttributionFields {
  const visit: Visit | null | undefined = summary?.lastVisit ?? summary?.firstVisit;
  if (!visit) return {};
  return {
    landingSite: visit.landingPage ?? null,
    referrer: visit.referrerUrl ?? null,
    utmSource: visit.utmParameters?.source ?? null,
    utmMedium: visit.utmParameters?.medium ?? null,
    utmCampaign: visit.utmParameters?.campaign ?? null,
    utmContent: visit.utmParameters?.content ?? null,
    utmTerm: visit.utmParameters?.term ?? null,
  };
}

/**
 * A refund's merchandise part: the refunded lines' subtotals when it has lines; a refund of an amount
 * only (no lines, e.g. a goodwill refund) counts whole. Refunded shipping and tax are not net sales.
 */
function merchandiseRefundMinor(lineSubtotalsMinor: number[], totalMinor: number): number {
  const lines = lineSubtotalsMinor.reduce((sum, amount) => sum + amount, 0);
  return lines > 0 ? lines : totalMinor;
}

export interface MappedShopifyOrder {
  order: IngestOrder;
  refunds: IngestRefund[];
  /** The order has more lines than were fetched with it (its stored lines are left as they are). */
  linesTruncated: boolean;
}

/** A GraphQL `Order` node (platform-apis.md 1.3). */
export function mapShopifyOrder(node: ShopifyOrderNode): MappedShopifyOrder {
  const currency = node.currencyCode;
  const externalId = node.legacyResourceId || numericIdOf(node.id);
  const discountsMinor = shopMinor(node.totalDiscountsSet, currency);
  const linesTruncated = node.lineItems.pageInfo?.hasNextPage === true;
  const lines: IngestOrderLine[] = node.lineItems.nodes.map((line) => {
    const unitPriceMinor = shopMinor(line.originalUnitPriceSet, currency);
    const discountedTotal = line.discountedTotalSet ? shopMinor(line.discountedTotalSet, currency) : unitPriceMinor * line.quantity;
    return {
      externalId: numericIdOf(line.id),
      productExternalId: line.product ? numericIdOf(line.product.id) : null,
      title: line.title ?? line.sku ?? 'Item',
      sku: line.sku || null,
      quantity: line.quantity,
      unitPriceMinor,
      discountMinor: Math.max(0, unitPriceMinor * line.quantity - discountedTotal),
    };
  });
  const email = node.customer?.defaultEmailAddress?.emailAddress ?? node.email ?? null;
  const order: IngestOrder = {
    platform: SHOPIFY,
    externalId,
    orderNumber: node.name,
    placedAt: node.processedAt ?? node.createdAt,
    updatedAt: node.updatedAt,
    currency,
    // subtotalPriceSet is after discounts and before returns, shipping and tax.
    grossMinor: shopMinor(node.subtotalPriceSet, currency) + discountsMinor,
    discountsMinor,
    shippingMinor: shopMinor(node.totalShippingPriceSet, currency),
    taxesMinor: shopMinor(node.totalTaxSet, currency),
    status: shopifyStatus(node.displayFinancialStatus, node.cancelledAt),
    isTest: node.test,
    customer: node.customer ? { externalId: numericIdOf(node.customer.id), email } : null,
    ...shopifyAttribution(node.customerJourneySummary),
    ...(linesTruncated ? {} : { lines }),
  };
  const refunds: IngestRefund[] = node.refunds.map((refund) => ({
    platform: SHOPIFY,
    externalId: numericIdOf(refund.id),
    orderExternalId: externalId,
    refundedAt: refund.createdAt,
    amountMinor: merchandiseRefundMinor(
      (refund.refundLineItems?.nodes ?? []).map((line) => shopMinor(line.subtotalSet, currency)),
      shopMinor(refund.totalRefundedSet, currency),
    ),
    currency,
    reason: refund.note ?? null,
  }));
  return { order, refunds, linesTruncated };
}

/** A product with its first variant's SKU, price and unit cost (the catalogue keeps one price per product). */
export function mapShopifyProduct(node: ShopifyProductNode, shopCurrency: string): IngestProduct {
  const variant = node.variants.nodes[0];
  const cost = variant?.inventoryItem?.unitCost;
  return {
    platform: SHOPIFY,
    externalId: node.legacyResourceId || numericIdOf(node.id),
    title: node.title,
    sku: variant?.sku || null,
    priceMinor: variant ? decimalToMinor(variant.price, shopCurrency, SHOPIFY) : 0,
    currency: shopCurrency,
    unitCostMinor: cost && cost.currencyCode === shopCurrency ? decimalToMinor(cost.amount, shopCurrency, SHOPIFY) : null,
    imageUrl: node.featuredImage?.url ?? null,
    active: !node.status || node.status === 'ACTIVE',
  };
}

// ---------------------------------------------------------------------------------------------
// REST representations (webhook payloads, platform-apis.md 1.5 and 1.6)

export interface ShopifyRestMoneySet {
  shop_money?: { amount: string; currency_code: string } | null;
}

export interface ShopifyRestRefund {
  id: number | string;
  order_id?: number | string;
  created_at: string;
  processed_at?: string | null;
  note?: string | null;
  refund_line_items?: { subtotal?: number | string | null; subtotal_set?: ShopifyRestMoneySet | null }[];
  transactions?: { kind?: string; status?: string; amount?: string; currency?: string }[];
}

export interface ShopifyRestOrder {
  id: number | string;
  name?: string | null;
  email?: string | null;
  created_at: string;
  updated_at?: string | null;
  processed_at?: string | null;
  cancelled_at?: string | null;
  test?: boolean;
  currency: string;
  financial_status?: string | null;
  total_line_items_price?: string | null;
  subtotal_price?: string | null;
  total_discounts?: string | null;
  total_tax?: string | null;
  total_shipping_price_set?: ShopifyRestMoneySet | null;
  landing_site?: string | null;
  referring_site?: string | null;
  customer?: { id: number | string; email?: string | null } | null;
  line_items?: { id: number | string; product_id?: number | string | null; sku?: string | null; title?: string | null; quantity: number; price: string; total_discount?: string | null }[];
  refunds?: ShopifyRestRefund[];
}

/** A REST refund (also the `refunds/create` webhook body, which carries `order_id`). */
export function mapShopifyRestRefund(refund: ShopifyRestRefund, orderExternalId: string, currency: string): IngestRefund {
  const lineSubtotals = (refund.refund_line_items ?? []).map((line) =>
    line.subtotal_set?.shop_money ? decimalToMinor(line.subtotal_set.shop_money.amount, currency, SHOPIFY) : decimalToMinor(line.subtotal ?? 0, currency, SHOPIFY),
  );
  const transactionsTotal = (refund.transactions ?? [])
    .filter((transaction) => transaction.kind === 'refund' && transaction.status === 'success')
    .reduce((sum, transaction) => sum + decimalToMinor(transaction.amount ?? '0', currency, SHOPIFY), 0);
  return {
    platform: SHOPIFY,
    externalId: String(refund.id),
    orderExternalId,
    refundedAt: refund.processed_at ?? refund.created_at,
    amountMinor: merchandiseRefundMinor(lineSubtotals, transactionsTotal),
    currency,
    reason: refund.note ?? null,
  };
}

export function mapShopifyRestOrder(order: ShopifyRestOrder): { order: IngestOrder; refunds: IngestRefund[] } {
  const currency = order.currency;
  const externalId = String(order.id);
  const minor = (value: string | null | undefined) => decimalToMinor(value ?? '0', currency, SHOPIFY);
  const discountsMinor = minor(order.total_discounts);
  const lines: IngestOrderLine[] = (order.line_items ?? []).map((line) => ({
    externalId: String(line.id),
    productExternalId: line.product_id === null || line.product_id === undefined ? null : String(line.product_id),
    title: line.title ?? line.sku ?? 'Item',
    sku: line.sku || null,
    quantity: line.quantity,
    unitPriceMinor: minor(line.price),
    discountMinor: minor(line.total_discount),
  }));
  const grossMinor = order.total_line_items_price != null ? minor(order.total_line_items_price) : minor(order.subtotal_price) + discountsMinor;
  return {
    order: {
      platform: SHOPIFY,
      externalId,
      orderNumber: order.name ?? null,
      placedAt: order.processed_at ?? order.created_at,
      updatedAt: order.updated_at ?? order.created_at,
      currency,
      grossMinor,
      discountsMinor,
      shippingMinor: minor(order.total_shipping_price_set?.shop_money?.amount),
      taxesMinor: minor(order.total_tax),
      status: shopifyStatus(order.financial_status, order.cancelled_at),
      isTest: order.test === true,
      customer: order.customer ? { externalId: String(order.customer.id), email: order.customer.email ?? order.email ?? null } : null,
      // REST keeps the visit as landing_site (path + query, where UTM and click ids live) and referring_site.
      landingSite: order.landing_site ?? null,
      referrer: order.referring_site ?? null,
      lines,
    },
    refunds: (order.refunds ?? []).map((refund) => mapShopifyRestRefund(refund, externalId, currency)),
  };
}
