import type { OrderStatus } from '../../../shared/commerce.ts';
import type { AttributionFields } from '../../modules/commerce/channel.ts';
import type { IngestOrder, IngestOrderLine, IngestProduct, IngestRefund } from '../../modules/commerce/ingest.ts';
import { decimalToMinor } from '../money.ts';
import { personName } from '../store-common.ts';
import { WOOCOMMERCE, gmtInstant, type WooOrder, type WooProduct, type WooRefund, type WooVariation } from './client.ts';

// WooCommerce records -> ingest rows, counted the way WooCommerce Analytics counts them (see
// docs/platform-notes.md "WooCommerce"). Dates are the *_gmt twins (the plain ones are site-local
// without a zone); money is the order's own currency, parsed exactly.

/**
 * Woo statuses -> ours, by what WooCommerce Analytics counts (its excluded statuses are pending,
 * failed and cancelled by default, plus trash, auto-draft and checkout-draft):
 * - never paid: pending (pending payment), failed, checkout-draft (a block checkout left unfinished),
 *   draft/auto-draft -> 'unpaid', counted nowhere;
 * - cancelled, and trash (a deleted order) -> 'cancelled', counted nowhere;
 * - on-hold (awaiting payment confirmation, stock reduced; Analytics counts it) -> 'pending', counted;
 * - processing, completed, refunded and statuses added by plugins (Analytics counts those too) ->
 *   'paid'; a refunded order becomes 'refunded' from its refund rows.
 */
export function wooStatus(status: string): OrderStatus {
  switch (status) {
    case 'pending':
    case 'failed':
    case 'checkout-draft':
    case 'draft':
    case 'auto-draft':
      return 'unpaid';
    case 'cancelled':
    case 'trash':
      return 'cancelled';
    case 'on-hold':
      return 'pending';
    default:
      return 'paid';
  }
}

/** The statuses WooCommerce Analytics leaves out by default (get_excluded_report_order_statuses and the block checkout's filter). */
export const WOO_ANALYTICS_EXCLUDED_STATUSES: readonly string[] = ['pending', 'failed', 'cancelled', 'trash', 'auto-draft', 'checkout-draft'];

export function isWooCountedStatus(status: string): boolean {
  return !WOO_ANALYTICS_EXCLUDED_STATUSES.includes(status);
}

const ATTRIBUTION_PREFIX = '_wc_order_attribution_';
const ATTRIBUTION_KEYS: Record<string, keyof AttributionFields> = {
  utm_source: 'utmSource',
  utm_medium: 'utmMedium',
  utm_campaign: 'utmCampaign',
  utm_content: 'utmContent',
  utm_term: 'utmTerm',
  referrer: 'referrer',
  session_entry: 'landingSite',
};

/** WooCommerce's Order Attribution meta (core since 8.5); click ids are read from the landing URL by ingest. */
export function wooAttribution(meta: WooOrder['meta_data']): AttributionFields {
  const fields: AttributionFields = {};
  for (const entry of meta) {
    if (!entry.key.startsWith(ATTRIBUTION_PREFIX) || typeof entry.value !== 'string') continue;
    const field = ATTRIBUTION_KEYS[entry.key.slice(ATTRIBUTION_PREFIX.length)];
    // Woo writes "(none)" for an empty UTM value.
    if (field && entry.value !== '' && entry.value !== '(none)') fields[field] = entry.value;
  }
  return fields;
}

function minorOf(currency: string) {
  return (value: string | null | undefined) => decimalToMinor(value ?? '0', currency, WOOCOMMERCE);
}

/**
 * What WooCommerce Analytics counts as the order's net sales (wc_order_stats.net_total): total - total_tax
 * - shipping_total, i.e. the lines after discounts plus the fees (positive or negative), all net of tax.
 */
export function wooAnalyticsNet(order: WooOrder): number {
  const minor = minorOf(order.currency);
  return minor(order.total) - minor(order.total_tax) - minor(order.shipping_total);
}

/**
 * The order, net of tax whatever prices_include_tax says: WooCommerce stores line subtotals and totals,
 * discount_total and shipping_total without tax in both modes (the tax is in subtotal_tax, total_tax,
 * discount_tax and shipping_tax). Gross = line subtotals + positive fees; discounts = gross - net, where
 * net is Analytics' net (above): the coupons (discount_total), negative fees, and the cent WooCommerce's
 * per-line rounding can put between the line sums and the order's own totals. So our net sales of the
 * order equal Analytics' exactly. Shipping is shipping_total, taxes total_tax (each tax counted once).
 */
export function mapWooOrder(order: WooOrder): IngestOrder {
  const currency = order.currency;
  const minor = minorOf(currency);
  const lines: IngestOrderLine[] = order.line_items.map((line) => {
    const subtotalMinor = minor(line.subtotal);
    // A variation's own id: its price and cost are the variation's (the parent's id when it has none).
    const productId = line.variation_id || line.product_id;
    return {
      externalId: String(line.id),
      productExternalId: productId ? String(productId) : null,
      title: line.name,
      sku: line.sku || null,
      quantity: line.quantity,
      // `price` is a JSON float; the subtotal string divided by the quantity is exact enough and float-free.
      unitPriceMinor: line.quantity > 0 ? Math.round(subtotalMinor / line.quantity) : subtotalMinor,
      discountMinor: Math.max(0, subtotalMinor - minor(line.total)),
    };
  });
  const net = wooAnalyticsNet(order);
  const positiveFees = order.fee_lines.reduce((sum, fee) => sum + Math.max(0, minor(fee.total)), 0);
  let gross = order.line_items.reduce((sum, line) => sum + minor(line.subtotal), 0) + positiveFees;
  let discounts = gross - net;
  if (discounts < 0) {
    // Rounding put the order's net a cent above its line sums: the order's own total wins.
    gross = net;
    discounts = 0;
  }
  const email = order.billing?.email || null;
  return {
    platform: WOOCOMMERCE,
    externalId: String(order.id),
    orderNumber: order.number ?? String(order.id),
    placedAt: gmtInstant(order.date_created_gmt),
    updatedAt: gmtInstant(order.date_modified_gmt ?? order.date_created_gmt),
    currency,
    grossMinor: gross,
    discountsMinor: discounts,
    shippingMinor: minor(order.shipping_total),
    taxesMinor: minor(order.total_tax),
    status: wooStatus(order.status),
    isTest: false,
    customer: order.customer_id > 0 ? { externalId: String(order.customer_id), email, name: personName(order.billing?.first_name, order.billing?.last_name) } : null,
    ...wooAttribution(order.meta_data),
    lines,
  };
}

interface RefundSplit {
  amount: number;
  merchandise: number;
  shipping: number;
  taxes: number;
  adjustments: number;
}

/** Money refunded per kind, from the refund's lines (WooCommerce stores refunded items negative). */
function refundedByKind(refund: WooRefund, currency: string): { shipping: number; taxes: number; hasLines: boolean } {
  const minor = minorOf(currency);
  // 0 - x, not -x: a refund without shipping refunds 0, not -0.
  const shipping = 0 - refund.shipping_lines.reduce((sum, line) => sum + minor(line.total), 0);
  const items = [...refund.line_items, ...refund.shipping_lines, ...refund.fee_lines];
  // The refund's tax lines are its get_total_tax(); the items' own taxes when a client left them out.
  const taxes = refund.tax_lines.length
    ? 0 - refund.tax_lines.reduce((sum, line) => sum + minor(line.tax_total) + minor(line.shipping_tax_total), 0)
    : 0 - items.reduce((sum, line) => sum + minor(line.total_tax), 0);
  return { shipping, taxes, hasLines: items.length > 0 };
}

/**
 * Splits a refund the way WooCommerce Analytics (since WooCommerce 10.2's full-refund data) counts it:
 * - a refund with lines, or a partial amount-only refund: net sales drop by the amount net of the
 *   refund's tax and shipping (wc_order_stats.net_total = total - tax - shipping of the refund), so
 *   refunded fees are merchandise, an amount-only refund without lines is merchandise whole, and a
 *   shipping-only refund lowers no net sales;
 * - the refund created when the order is set to Refunded (wc_order_fully_refunded: the remaining
 *   total, no lines) takes what the earlier refunds left of the order's net, shipping and tax.
 * What the split cannot place (a cent of rounding, an amount below the refunded tax and shipping) is
 * an adjustment.
 */
function splitRefunds(order: WooOrder, refunds: WooRefund[]): Map<number, RefundSplit> {
  const minor = minorOf(order.currency);
  const ordered = [...refunds].sort((a, b) => a.date_created_gmt.localeCompare(b.date_created_gmt) || a.id - b.id);
  const refundedTotal = ordered.reduce((sum, refund) => sum + minor(refund.amount), 0);
  const last = ordered.at(-1);
  const splits = new Map<number, RefundSplit>();
  let full: WooRefund | null = null;
  for (const refund of ordered) {
    const amount = minor(refund.amount);
    const { shipping, taxes, hasLines } = refundedByKind(refund, order.currency);
    if (refund === last && !hasLines && refundedTotal === minor(order.total) && amount > 0) {
      full = refund;
      continue;
    }
    const merchandise = Math.max(0, amount - shipping - taxes);
    splits.set(refund.id, { amount, merchandise, shipping, taxes, adjustments: amount - shipping - taxes - merchandise });
  }
  if (full) {
    const earlier = [...splits.values()];
    const left = (whole: number, part: (split: RefundSplit) => number) => Math.max(0, whole - earlier.reduce((sum, split) => sum + part(split), 0));
    const amount = minor(full.amount);
    const merchandise = left(wooAnalyticsNet(order), (split) => split.merchandise);
    const shipping = left(minor(order.shipping_total), (split) => split.shipping);
    const taxes = left(minor(order.total_tax), (split) => split.taxes);
    splits.set(full.id, { amount, merchandise, shipping, taxes, adjustments: amount - merchandise - shipping - taxes });
  }
  return splits;
}

/** The order's refunds, each on its own date, split into merchandise, shipping, tax and adjustments. */
export function mapWooRefunds(order: WooOrder, refunds: WooRefund[]): IngestRefund[] {
  const splits = splitRefunds(order, refunds);
  return refunds.map((refund) => {
    const split = splits.get(refund.id)!;
    return {
      platform: WOOCOMMERCE,
      externalId: String(refund.id),
      orderExternalId: String(order.id),
      refundedAt: gmtInstant(refund.date_created_gmt),
      amountMinor: split.merchandise,
      shippingMinor: split.shipping,
      taxesMinor: split.taxes,
      adjustmentsMinor: split.adjustments,
      currency: order.currency,
      reason: refund.reason || null,
    };
  });
}

/**
 * The Cost of Goods Sold total (per unit) when WooCommerce's COGS feature is on; undefined otherwise,
 * and when no cost was entered (0), so that a cost entered here is kept.
 */
function cogsMinor(cogs: WooProduct['cost_of_goods_sold'], currency: string): number | undefined {
  const value = cogs?.total_value;
  if (value === null || value === undefined || value === '') return undefined;
  const minor = decimalToMinor(value, currency, WOOCOMMERCE);
  return minor > 0 ? minor : undefined;
}

function priceMinor(price: string | null | undefined, currency: string): number {
  return price ? decimalToMinor(price, currency, WOOCOMMERCE) : 0;
}

export function mapWooProduct(product: WooProduct, currency: string): IngestProduct {
  const cost = cogsMinor(product.cost_of_goods_sold, currency);
  return {
    platform: WOOCOMMERCE,
    externalId: String(product.id),
    title: product.name,
    sku: product.sku || null,
    priceMinor: priceMinor(product.price, currency),
    currency,
    ...(cost !== undefined ? { unitCostMinor: cost } : {}),
    imageUrl: product.images[0]?.src ?? null,
    active: !product.status || product.status === 'publish',
  };
}

/** A variation as a product of its own ("Hoodie - Blue, L"): order lines name it by variation_id. */
export function mapWooVariation(parent: WooProduct, variation: WooVariation, currency: string): IngestProduct {
  const options = variation.attributes.map((attribute) => attribute.option).filter((option): option is string => !!option);
  const cost = cogsMinor(variation.cost_of_goods_sold, currency);
  return {
    platform: WOOCOMMERCE,
    externalId: String(variation.id),
    title: options.length ? `${parent.name} - ${options.join(', ')}` : parent.name,
    sku: variation.sku || null,
    priceMinor: priceMinor(variation.price, currency),
    currency,
    ...(cost !== undefined ? { unitCostMinor: cost } : {}),
    imageUrl: variation.image?.src ?? parent.images[0]?.src ?? null,
    active: (!parent.status || parent.status === 'publish') && (!variation.status || variation.status === 'publish'),
  };
}
