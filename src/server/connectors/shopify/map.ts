import type { OrderStatus } from '../../../shared/commerce.ts';
import type { AttributionFields } from '../../modules/commerce/channel.ts';
import type { IngestOrder, IngestOrderLine, IngestProduct, IngestRefund } from '../../modules/commerce/ingest.ts';
import { decimalToMinor } from '../money.ts';
import { personName } from '../store-common.ts';
import { MalformedResponseError } from '../connector.ts';
import { SHOPIFY, type ShopifyMoneyBag, type ShopifyOrderNode, type ShopifyProductNode, type ShopifyRefundNode } from './client.ts';

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

// ---------------------------------------------------------------------------------------------
// Amounts net of tax. https://shopify.dev/docs/api/admin-graphql/2026-01/objects/Order: with
// `taxesIncluded: true` (UK/EU shops) "the subtotal and line item prices include tax amounts", and so do
// shipping prices ("If the parent order.taxesIncluded field is true, then this price includes taxes");
// with `false` taxes are on top. Our grossMinor, discountsMinor, shippingMinor and every refund amount
// are net of tax, and taxesMinor is the tax counted once, for both kinds of shop.

/** One line's charged amounts, in minor units of the shop currency (as the shop shows them). */
export interface LineAmounts {
  unitMinor: number;
  quantity: number;
  /** After the line's own discounts. */
  discountedTotalMinor: number;
  taxMinor: number;
}

/** An order's charged amounts, in minor units of the shop currency, tax included or not as the shop prices. */
export interface OrderAmounts {
  taxesIncluded: boolean;
  /** Lines after discounts, before returns (Order.subtotalPriceSet / subtotal_price). */
  subtotalMinor: number;
  /** The lines before discounts: null when they are not all known. */
  linesBeforeDiscountsMinor: number | null;
  /** Order and line discounts (Order.totalDiscountsSet), used only when the lines are not all known. */
  discountsMinor: number;
  /** All tax of the order (Order.totalTaxSet). */
  taxMinor: number;
  /** Shipping charged, after shipping discounts. */
  shippingMinor: number;
  shippingTaxMinor: number;
}

/** round(amount * numerator / denominator) on whole minor units (no float ever holds an amount). */
function scaled(amount: number, numerator: number, denominator: number): number {
  if (denominator === 0) return amount;
  const sign = Math.sign(amount) * Math.sign(numerator) * Math.sign(denominator);
  const product = BigInt(Math.abs(amount)) * BigInt(Math.abs(numerator));
  const divisor = BigInt(Math.abs(denominator));
  return sign * Number((product * 2n + divisor) / (divisor * 2n));
}

/** gross, discounts, shipping and taxes of an order, each net of tax (see the section comment). */
export function orderFiguresNetOfTax(amounts: OrderAmounts): { grossMinor: number; discountsMinor: number; shippingMinor: number; taxesMinor: number } {
  const grossCharged = amounts.linesBeforeDiscountsMinor ?? amounts.subtotalMinor + amounts.discountsMinor;
  if (!amounts.taxesIncluded) {
    return { grossMinor: grossCharged, discountsMinor: grossCharged - amounts.subtotalMinor, shippingMinor: amounts.shippingMinor, taxesMinor: amounts.taxMinor };
  }
  // The lines' tax is the order's tax less the shipping's (duties aside), whatever lines were read.
  const linesTax = amounts.taxMinor - amounts.shippingTaxMinor;
  const merchandiseNet = amounts.subtotalMinor - linesTax;
  // Discounts carry the same rate as the lines they discount: gross net of tax in that proportion.
  const grossNet = amounts.subtotalMinor > 0 ? scaled(grossCharged, merchandiseNet, amounts.subtotalMinor) : grossCharged;
  return {
    grossMinor: grossNet,
    discountsMinor: grossNet - merchandiseNet,
    shippingMinor: amounts.shippingMinor - amounts.shippingTaxMinor,
    taxesMinor: amounts.taxMinor,
  };
}

/** A line's unit price and discount net of tax (a tax-inclusive line is scaled by its own rate). */
export function lineNetOfTax(line: LineAmounts, taxesIncluded: boolean): { unitPriceMinor: number; discountMinor: number } {
  const discountMinor = Math.max(0, line.unitMinor * line.quantity - line.discountedTotalMinor);
  if (!taxesIncluded || line.taxMinor === 0) return { unitPriceMinor: line.unitMinor, discountMinor };
  const net = line.discountedTotalMinor - line.taxMinor;
  const unitNet = line.discountedTotalMinor > 0 ? scaled(line.unitMinor, net, line.discountedTotalMinor) : line.unitMinor;
  return { unitPriceMinor: unitNet, discountMinor: Math.max(0, unitNet * line.quantity - net) };
}

/** What a refund returned, in minor units of the shop currency, as Shopify records its parts. */
export interface RefundParts {
  taxesIncluded: boolean;
  /** Refunded lines: their subtotal (tax included when the shop's prices include it) and their tax. */
  lines: { subtotalMinor: number; taxMinor: number }[];
  /** Refunded shipping (refundShippingLines / refund_shipping_lines). */
  shipping: { subtotalMinor: number; taxMinor: number }[];
  /**
   * Order adjustments (refund discrepancies, goodwill amounts). Shopify's sign: negative is in the
   * customer's favour (money returned beyond what the lines and shipping account for).
   */
  adjustments: { amountMinor: number; taxMinor: number }[];
  /**
   * The whole refund in shop money, for a refund that lists none of the parts above (an amount-only
   * refund recorded without an adjustment): kept as an adjustment, never as merchandise.
   */
  totalMinor?: number;
}

/** IngestRefund's four parts: merchandise, shipping, tax and adjustments, each apart. */
export function refundFigures(parts: RefundParts): Pick<IngestRefund, 'amountMinor' | 'shippingMinor' | 'taxesMinor' | 'adjustmentsMinor'> {
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const linesTax = sum(parts.lines.map((line) => line.taxMinor));
  const shippingTax = sum(parts.shipping.map((line) => line.taxMinor));
  const adjustmentsTax = sum(parts.adjustments.map((adjustment) => -adjustment.taxMinor));
  return {
    amountMinor: sum(parts.lines.map((line) => line.subtotalMinor)) - (parts.taxesIncluded ? linesTax : 0),
    shippingMinor: sum(parts.shipping.map((line) => line.subtotalMinor)) - (parts.taxesIncluded ? shippingTax : 0),
    taxesMinor: linesTax + shippingTax + adjustmentsTax,
    adjustmentsMinor:
      parts.lines.length + parts.shipping.length + parts.adjustments.length === 0 ? (parts.totalMinor ?? 0) : sum(parts.adjustments.map((adjustment) => -adjustment.amountMinor)),
  };
}

export interface MappedShopifyOrder {
  order: IngestOrder;
  refunds: IngestRefund[];
}

function taxOf(lines: readonly { priceSet: ShopifyMoneyBag }[] | null | undefined, currency: string): number {
  return (lines ?? []).reduce((sum, line) => sum + shopMinor(line.priceSet, currency), 0);
}

/** A GraphQL `Refund` with its parts read (see ShopifyClient.refunds). */
export function mapShopifyRefund(refund: ShopifyRefundNode, orderExternalId: string, currency: string, taxesIncluded: boolean): IngestRefund {
  if (!refund.createdAt) throw new MalformedResponseError(SHOPIFY, `refund ${refund.id} came without its date`);
  return {
    platform: SHOPIFY,
    externalId: numericIdOf(refund.id),
    orderExternalId,
    refundedAt: refund.createdAt,
    ...refundFigures({
      taxesIncluded,
      lines: (refund.refundLineItems?.nodes ?? []).map((line) => ({ subtotalMinor: shopMinor(line.subtotalSet, currency), taxMinor: shopMinor(line.totalTaxSet, currency) })),
      shipping: (refund.refundShippingLines?.nodes ?? []).map((line) => ({ subtotalMinor: shopMinor(line.subtotalAmountSet, currency), taxMinor: shopMinor(line.taxAmountSet, currency) })),
      adjustments: (refund.orderAdjustments?.nodes ?? []).map((adjustment) => ({ amountMinor: shopMinor(adjustment.amountSet, currency), taxMinor: shopMinor(adjustment.taxAmountSet, currency) })),
      totalMinor: shopMinor(refund.totalRefundedSet, currency),
    }),
    currency,
    reason: refund.note ?? null,
  };
}

/**
 * A GraphQL `Order` node with all its lines and its refunds' parts (platform-apis.md 1.3 and the
 * follow-up reads of the connector), in shop money, net of tax.
 */
export function mapShopifyOrder(node: ShopifyOrderNode): MappedShopifyOrder {
  const currency = node.currencyCode;
  const taxesIncluded = node.taxesIncluded === true;
  const externalId = node.legacyResourceId || numericIdOf(node.id);
  const complete = node.lineItems.pageInfo?.hasNextPage !== true;
  const charged = node.lineItems.nodes.map((line) => {
    const unitMinor = shopMinor(line.originalUnitPriceSet, currency);
    return {
      line,
      amounts: {
        unitMinor,
        quantity: line.quantity,
        discountedTotalMinor: line.discountedTotalSet ? shopMinor(line.discountedTotalSet, currency) : unitMinor * line.quantity,
        taxMinor: taxOf(line.taxLines, currency),
      },
    };
  });
  const lines: IngestOrderLine[] = charged.map(({ line, amounts }) => ({
    externalId: numericIdOf(line.id),
    productExternalId: line.product ? numericIdOf(line.product.id) : null,
    title: line.title ?? line.sku ?? 'Item',
    sku: line.sku || null,
    quantity: line.quantity,
    ...lineNetOfTax(amounts, taxesIncluded),
  }));
  const figures = orderFiguresNetOfTax({
    taxesIncluded,
    subtotalMinor: shopMinor(node.subtotalPriceSet, currency),
    linesBeforeDiscountsMinor: complete && charged.length ? charged.reduce((sum, { amounts }) => sum + amounts.unitMinor * amounts.quantity, 0) : null,
    discountsMinor: shopMinor(node.totalDiscountsSet, currency),
    taxMinor: shopMinor(node.totalTaxSet, currency),
    shippingMinor: shopMinor(node.shippingLine?.discountedPriceSet, currency),
    shippingTaxMinor: taxOf(node.shippingLine?.taxLines, currency),
  });
  const email = node.customer?.defaultEmailAddress?.emailAddress ?? node.email ?? null;
  const order: IngestOrder = {
    platform: SHOPIFY,
    externalId,
    orderNumber: node.name,
    placedAt: node.processedAt ?? node.createdAt,
    updatedAt: node.updatedAt,
    currency,
    ...figures,
    status: shopifyStatus(node.displayFinancialStatus, node.cancelledAt),
    isTest: node.test,
    customer: node.customer ? { externalId: numericIdOf(node.customer.id), email, name: personName(node.customer.firstName, node.customer.lastName) } : null,
    ...shopifyAttribution(node.customerJourneySummary),
    // An order whose lines were not all read keeps its stored lines (the connector reads them all).
    ...(complete ? { lines } : {}),
  };
  return { order, refunds: node.refunds.map((refund) => mapShopifyRefund(refund, externalId, currency, taxesIncluded)) };
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
// REST representations (webhook payloads, platform-apis.md 1.5 and 1.6), read in shop money only:
// https://shopify.dev/docs/api/admin-rest/2026-01/resources/refund. A `*_set` carries shop_money and
// presentment_money; a transaction's `amount` is in the presentment (buyer's) currency, so it is
// never used as the shop's money (point 7 of issue 14).

export interface ShopifyRestMoneySet {
  shop_money?: { amount: string; currency_code: string } | null;
  presentment_money?: { amount: string; currency_code: string } | null;
}

interface RestTaxLine {
  price_set?: ShopifyRestMoneySet | null;
}

export interface ShopifyRestRefund {
  id: number | string;
  order_id?: number | string;
  created_at: string;
  processed_at?: string | null;
  note?: string | null;
  refund_line_items?: { subtotal_set?: ShopifyRestMoneySet | null; total_tax_set?: ShopifyRestMoneySet | null }[];
  refund_shipping_lines?: { subtotal_amount_set?: ShopifyRestMoneySet | null; tax_amount_set?: ShopifyRestMoneySet | null }[];
  order_adjustments?: { amount_set?: ShopifyRestMoneySet | null; tax_amount_set?: ShopifyRestMoneySet | null }[];
  /** `amount` and `currency` are the presentment currency's: not read as shop money. */
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
  taxes_included?: boolean | null;
  financial_status?: string | null;
  total_line_items_price_set?: ShopifyRestMoneySet | null;
  subtotal_price_set?: ShopifyRestMoneySet | null;
  total_discounts_set?: ShopifyRestMoneySet | null;
  total_tax_set?: ShopifyRestMoneySet | null;
  total_line_items_price?: string | null;
  subtotal_price?: string | null;
  total_discounts?: string | null;
  total_tax?: string | null;
  total_shipping_price_set?: ShopifyRestMoneySet | null;
  shipping_lines?: { discounted_price_set?: ShopifyRestMoneySet | null; price_set?: ShopifyRestMoneySet | null; tax_lines?: RestTaxLine[] | null }[];
  landing_site?: string | null;
  referring_site?: string | null;
  customer?: { id: number | string; email?: string | null; first_name?: string | null; last_name?: string | null } | null;
  line_items?: {
    id: number | string;
    product_id?: number | string | null;
    sku?: string | null;
    title?: string | null;
    quantity: number;
    price: string;
    price_set?: ShopifyRestMoneySet | null;
    total_discount?: string | null;
    total_discount_set?: ShopifyRestMoneySet | null;
    tax_lines?: RestTaxLine[] | null;
  }[];
  refunds?: ShopifyRestRefund[];
}

/** A shop-money amount: the set's shop_money, else the plain shop-currency field. */
function restShopMinor(set: ShopifyRestMoneySet | null | undefined, plain: string | number | null | undefined, currency: string): number {
  if (set?.shop_money) return decimalToMinor(set.shop_money.amount, currency, SHOPIFY);
  return decimalToMinor(plain ?? 0, currency, SHOPIFY);
}

function restTaxOf(lines: RestTaxLine[] | null | undefined, currency: string): number {
  return (lines ?? []).reduce((sum, line) => sum + restShopMinor(line.price_set, 0, currency), 0);
}

/** Whether a REST refund lists any part with shop money (lines, shipping, adjustments). */
export function restRefundHasParts(refund: ShopifyRestRefund): boolean {
  return Boolean(refund.refund_line_items?.length || refund.refund_shipping_lines?.length || refund.order_adjustments?.length);
}

/**
 * A REST refund (also the `refunds/create` webhook body, which carries `order_id`). `taxesIncluded` is
 * the order's (a refunds/create body does not say it); a refund without parts keeps no amount at all
 * rather than read the presentment-currency transactions as shop money (the webhook reads such a
 * refund from the GraphQL API instead, see mapShopifyWebhook).
 */
export function mapShopifyRestRefund(refund: ShopifyRestRefund, orderExternalId: string, currency: string, taxesIncluded: boolean): IngestRefund {
  return {
    platform: SHOPIFY,
    externalId: String(refund.id),
    orderExternalId,
    refundedAt: refund.processed_at ?? refund.created_at,
    ...refundFigures({
      taxesIncluded,
      lines: (refund.refund_line_items ?? []).map((line) => ({ subtotalMinor: restShopMinor(line.subtotal_set, 0, currency), taxMinor: restShopMinor(line.total_tax_set, 0, currency) })),
      shipping: (refund.refund_shipping_lines ?? []).map((line) => ({ subtotalMinor: restShopMinor(line.subtotal_amount_set, 0, currency), taxMinor: restShopMinor(line.tax_amount_set, 0, currency) })),
      adjustments: (refund.order_adjustments ?? []).map((adjustment) => ({ amountMinor: restShopMinor(adjustment.amount_set, 0, currency), taxMinor: restShopMinor(adjustment.tax_amount_set, 0, currency) })),
    }),
    currency,
    reason: refund.note ?? null,
  };
}

export function mapShopifyRestOrder(order: ShopifyRestOrder): { order: IngestOrder; refunds: IngestRefund[] } {
  const currency = order.currency;
  const taxesIncluded = order.taxes_included === true;
  const externalId = String(order.id);
  const charged = (order.line_items ?? []).map((line) => {
    const unitMinor = restShopMinor(line.price_set, line.price, currency);
    return { line, amounts: { unitMinor, quantity: line.quantity, discountedTotalMinor: unitMinor * line.quantity - restShopMinor(line.total_discount_set, line.total_discount, currency), taxMinor: restTaxOf(line.tax_lines, currency) } };
  });
  const lines: IngestOrderLine[] = charged.map(({ line, amounts }) => ({
    externalId: String(line.id),
    productExternalId: line.product_id === null || line.product_id === undefined ? null : String(line.product_id),
    title: line.title ?? line.sku ?? 'Item',
    sku: line.sku || null,
    quantity: line.quantity,
    ...lineNetOfTax(amounts, taxesIncluded),
  }));
  const shippingLines = order.shipping_lines ?? [];
  const figures = orderFiguresNetOfTax({
    taxesIncluded,
    subtotalMinor: restShopMinor(order.subtotal_price_set, order.subtotal_price, currency),
    linesBeforeDiscountsMinor: order.total_line_items_price_set || order.total_line_items_price != null ? restShopMinor(order.total_line_items_price_set, order.total_line_items_price, currency) : null,
    discountsMinor: restShopMinor(order.total_discounts_set, order.total_discounts, currency),
    taxMinor: restShopMinor(order.total_tax_set, order.total_tax, currency),
    shippingMinor: shippingLines.length
      ? shippingLines.reduce((sum, line) => sum + restShopMinor(line.discounted_price_set ?? line.price_set, 0, currency), 0)
      : restShopMinor(order.total_shipping_price_set, 0, currency),
    shippingTaxMinor: shippingLines.reduce((sum, line) => sum + restTaxOf(line.tax_lines, currency), 0),
  });
  return {
    order: {
      platform: SHOPIFY,
      externalId,
      orderNumber: order.name ?? null,
      placedAt: order.processed_at ?? order.created_at,
      updatedAt: order.updated_at ?? order.created_at,
      currency,
      ...figures,
      status: shopifyStatus(order.financial_status, order.cancelled_at),
      isTest: order.test === true,
      customer: order.customer
        ? { externalId: String(order.customer.id), email: order.customer.email ?? order.email ?? null, name: personName(order.customer.first_name, order.customer.last_name) }
        : null,
      // REST keeps the visit as landing_site (path + query, where UTM and click ids live) and referring_site.
      landingSite: order.landing_site ?? null,
      referrer: order.referring_site ?? null,
      lines,
    },
    refunds: (order.refunds ?? []).map((refund) => mapShopifyRestRefund(refund, externalId, currency, taxesIncluded)),
  };
}

// ---------------------------------------------------------------------------------------------
// REST products (products/create and products/update webhooks):
// https://shopify.dev/docs/api/admin-rest/2026-01/resources/product. The body has no unit cost (that
// lives on the inventory item): the stored cost is kept (unitCostMinor absent).

export interface ShopifyRestProduct {
  id: number | string;
  title: string;
  status?: string | null;
  image?: { src?: string | null } | null;
  variants?: { id: number | string; sku?: string | null; price: string }[];
}

export function mapShopifyRestProduct(product: ShopifyRestProduct, shopCurrency: string): IngestProduct {
  const variant = product.variants?.[0];
  return {
    platform: SHOPIFY,
    externalId: String(product.id),
    title: product.title,
    sku: variant?.sku || null,
    priceMinor: variant ? decimalToMinor(variant.price, shopCurrency, SHOPIFY) : 0,
    currency: shopCurrency,
    imageUrl: product.image?.src ?? null,
    active: !product.status || product.status === 'active',
  };
}
