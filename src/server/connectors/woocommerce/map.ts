import type { OrderStatus } from '../../../shared/commerce.ts';
import type { AttributionFields } from '../../modules/commerce/channel.ts';
import type { IngestOrder, IngestOrderLine, IngestProduct, IngestRefund } from '../../modules/commerce/ingest.ts';
import { decimalToMinor } from '../money.ts';
import { WOOCOMMERCE, gmtInstant, type WooOrder, type WooProduct, type WooRefund } from './client.ts';

// WooCommerce records -> ingest rows. Dates are the *_gmt twins (the plain ones are site-local
// without a zone); money is the order's own currency, parsed exactly.

/**
 * Woo statuses -> ours: processing/completed are paid, pending/on-hold await payment; cancelled,
 * failed and trashed orders and unfinished block checkouts (checkout-draft) never count. 'refunded'
 * maps to paid: the refund rows make it refunded. Exactly WOO_COUNTED_STATUSES map to counting ones,
 * apart from statuses added by plugins (paid here, not in the platform's counts).
 */
export function wooStatus(status: string): OrderStatus {
  switch (status) {
    case 'pending':
    case 'on-hold':
      return 'pending';
    case 'cancelled':
    case 'failed':
    case 'trash':
    case 'checkout-draft':
      return 'cancelled';
    default:
      return 'paid';
  }
}

/** The Woo statuses that map to a counting (not cancelled) order: what sourceTotals counts. */
export const WOO_COUNTED_STATUSES = ['pending', 'on-hold', 'processing', 'completed', 'refunded'] as const;

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

export function mapWooOrder(order: WooOrder): IngestOrder {
  const currency = order.currency;
  const minor = (value: string | null | undefined) => decimalToMinor(value ?? '0', currency, WOOCOMMERCE);
  const lines: IngestOrderLine[] = order.line_items.map((line) => {
    const subtotalMinor = minor(line.subtotal);
    const productId = line.product_id ? String(line.product_id) : null;
    return {
      externalId: String(line.id),
      productExternalId: productId,
      title: line.name,
      sku: line.sku || null,
      quantity: line.quantity,
      // `price` is a JSON float; the subtotal string divided by the quantity is exact enough and float-free.
      unitPriceMinor: line.quantity > 0 ? Math.round(subtotalMinor / line.quantity) : subtotalMinor,
      discountMinor: Math.max(0, subtotalMinor - minor(line.total)),
    };
  });
  const email = order.billing?.email || null;
  return {
    platform: WOOCOMMERCE,
    externalId: String(order.id),
    orderNumber: order.number ?? String(order.id),
    placedAt: gmtInstant(order.date_created_gmt),
    updatedAt: gmtInstant(order.date_modified_gmt ?? order.date_created_gmt),
    currency,
    // Line subtotals are before discounts and without tax, whatever prices_include_tax says.
    grossMinor: order.line_items.reduce((sum, line) => sum + minor(line.subtotal), 0),
    discountsMinor: minor(order.discount_total),
    shippingMinor: minor(order.shipping_total),
    taxesMinor: minor(order.total_tax),
    status: wooStatus(order.status),
    isTest: false,
    customer: order.customer_id > 0 ? { externalId: String(order.customer_id), email } : null,
    ...wooAttribution(order.meta_data),
    lines,
  };
}

/**
 * A refund with its own date. Its merchandise part is the refunded lines' totals (negative in Woo);
 * a refund of an amount only (no lines) counts whole.
 */
export function mapWooRefund(refund: WooRefund, orderId: number | string, currency: string): IngestRefund {
  const minor = (value: string | null | undefined) => decimalToMinor(value ?? '0', currency, WOOCOMMERCE);
  const lines = refund.line_items.reduce((sum, line) => sum + Math.abs(minor(line.total ?? line.subtotal)), 0);
  return {
    platform: WOOCOMMERCE,
    externalId: String(refund.id),
    orderExternalId: String(orderId),
    refundedAt: gmtInstant(refund.date_created_gmt),
    amountMinor: lines > 0 ? lines : Math.abs(minor(refund.amount)),
    currency,
    reason: refund.reason || null,
  };
}

export function mapWooProduct(product: WooProduct, currency: string): IngestProduct {
  return {
    platform: WOOCOMMERCE,
    externalId: String(product.id),
    title: product.name,
    sku: product.sku || null,
    priceMinor: product.price ? decimalToMinor(product.price, currency, WOOCOMMERCE) : 0,
    currency,
    imageUrl: product.images[0]?.src ?? null,
    active: !product.status || product.status === 'publish',
  };
}
