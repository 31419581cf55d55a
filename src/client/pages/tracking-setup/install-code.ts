// The code the tracking screen tells merchants to paste, built from the store's own key and
// addresses (README, "Tracking: the set-up screen"). Pure functions: the screen shows them, a test
// checks them.

export interface InstallTarget {
  storeKey: string;
  /** The tag itself: <script async src=".../p.js" data-store="..."></script>. */
  snippet: string;
  pixelUrl: string;
  collectorUrl: string;
}

/** Queues calls made before p.js has loaded (README, "Installing the pixel"). */
export const SP_STUB = 'window.sp = window.sp || function () { (sp.q = sp.q || []).push(arguments) };';

/** The tag with the stub before it: what goes into a page's <head>. */
export function headCode(target: InstallTarget): string {
  return `<script>${SP_STUB}</script>\n${target.snippet}`;
}

/**
 * Shopify, theme: every storefront page (Online Store → Themes → Edit code → layout/theme.liquid,
 * before </head>); a signed-in customer is identified (the pixel hashes the address in the browser).
 */
export function shopifyThemeCode(target: InstallTarget): string {
  return `${headCode(target)}
{% if customer %}<script>sp('identify', { email: {{ customer.email | json }} });</script>{% endif %}`;
}

/**
 * Shopify, Settings → Customer events → Add custom pixel. Custom pixels run in a sandbox (their own
 * iframe, no access to the page), so this code does not load p.js: it posts the pixel's own wire
 * format to the collector, with the visitor id of the theme's pixel (the _sp_id cookie, read through
 * Shopify's browser.cookie) so that the storefront visit and the checkout join. Storefront pages are
 * counted by the theme snippet; checkout pages run no theme code, so this counts them.
 */
export function shopifyCustomPixelCode(target: InstallTarget): string {
  return `// StorePulse: Shopify custom pixel (Settings → Customer events → Add custom pixel)
const SP_KEY = ${JSON.stringify(target.storeKey)};
const SP_ENDPOINT = ${JSON.stringify(target.collectorUrl)};
const spId = (value) => String(value || '').replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64);

async function sha256(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function spSend(event, name, props) {
  const doc = event.context.document;
  const cookieId = spId(await browser.cookie.get('_sp_id'));
  const body = {
    key: SP_KEY,
    aid: cookieId.length >= 8 ? cookieId : spId(event.clientId),
    consent: 1,
    now: Date.now(),
    events: [{ name, id: spId(event.id), ts: Date.parse(event.timestamp) || Date.now(), url: doc.location.href, ref: doc.referrer || '', title: doc.title, props }],
  };
  fetch(SP_ENDPOINT, { method: 'POST', body: JSON.stringify(body), keepalive: true, headers: { 'content-type': 'text/plain' } }).catch(() => {});
}

const variantItem = (variant, quantity) => ({
  id: String(variant.product.id), name: variant.product.title, variant: variant.title || undefined, price: Number(variant.price.amount), quantity,
});

function checkoutProps(checkout) {
  return {
    value: Number(checkout.totalPrice.amount),
    currency: checkout.currencyCode,
    checkout_token: checkout.token || undefined,
    items: checkout.lineItems.map((line) => (line.variant ? variantItem(line.variant, line.quantity) : { name: line.title, quantity: line.quantity })),
  };
}

analytics.subscribe('page_viewed', (event) => {
  if (event.context.document.location.pathname.includes('/checkouts/')) spSend(event, 'page_view');
});

analytics.subscribe('product_viewed', (event) => {
  const variant = event.data.productVariant;
  spSend(event, 'view_item', { value: Number(variant.price.amount), currency: variant.price.currencyCode, items: [variantItem(variant, 1)] });
});

analytics.subscribe('product_added_to_cart', (event) => {
  const line = event.data.cartLine;
  spSend(event, 'add_to_cart', { value: Number(line.cost.totalAmount.amount), currency: line.cost.totalAmount.currencyCode, items: [variantItem(line.merchandise, line.quantity)] });
});

analytics.subscribe('checkout_started', (event) => {
  spSend(event, 'begin_checkout', checkoutProps(event.data.checkout));
});

analytics.subscribe('checkout_completed', async (event) => {
  const checkout = event.data.checkout;
  const props = checkoutProps(checkout);
  // The order's numeric id (the last part of a gid://shopify/... id), as the Shopify connector stores it.
  props.order_id = String((checkout.order && checkout.order.id) || checkout.token).split('/').pop();
  if (checkout.email) props.email_hash = await sha256(checkout.email.trim().toLowerCase());
  spSend(event, 'purchase', props);
});`;
}

/** WooCommerce: functions.php of a child theme, or a snippet of the Code Snippets plugin (PHP, run everywhere). */
export function wooCommerceCode(target: InstallTarget): string {
  return `<?php
// StorePulse: the pixel on every page, the purchase on the order-received ("thank you") page.
add_action('wp_head', function () {
  echo '<script>${SP_STUB.replace(/'/g, "\\'")}</script>';
  echo '${target.snippet.replace(/'/g, "\\'")}';
});

add_action('woocommerce_thankyou', function ($order_id) {
  $order = wc_get_order($order_id);
  if (!$order) return;
  $items = array();
  foreach ($order->get_items() as $item) {
    $items[] = array(
      'id' => (string) $item->get_product_id(),
      'name' => $item->get_name(),
      'quantity' => (int) $item->get_quantity(),
      'price' => (float) $order->get_item_total($item),
    );
  }
  $props = array(
    // The order id is the purchase's id: the same order sent twice is stored once.
    'order_id' => (string) $order->get_id(),
    'value' => (float) $order->get_total(),
    'currency' => $order->get_currency(),
    'items' => $items,
  );
  if ($order->get_customer_id()) $props['customer_id'] = (string) $order->get_customer_id();
  echo '<script>sp("event", "purchase", ' . wp_json_encode($props) . ');';
  echo 'sp("identify", { email: ' . wp_json_encode($order->get_billing_email()) . ' });</script>';
});`;
}

/** Any site: the tag in <head>, then the commerce calls where they happen. */
export function anySiteCode(target: InstallTarget): string {
  return `${headCode(target)}

<script>
  // On a product page:
  sp('event', 'view_item', { value: 24.00, currency: 'EUR', items: [{ id: 'SKU-1', name: 'Mug', price: 24.00, quantity: 1 }] });
  // When something is added to the cart:
  sp('event', 'add_to_cart', { value: 24.00, currency: 'EUR', items: [{ id: 'SKU-1', name: 'Mug', price: 24.00, quantity: 1 }] });
  // When checkout starts:
  sp('event', 'begin_checkout', { value: 48.00, currency: 'EUR' });
  // On the order confirmation page (order_id, value and currency are required):
  sp('event', 'purchase', { order_id: '1001', value: 48.00, currency: 'EUR', items: [{ id: 'SKU-1', name: 'Mug', price: 24.00, quantity: 2 }] });
  // Once the buyer's e-mail is known (hashed with SHA-256 in the browser; the address is never sent):
  sp('identify', { email: 'buyer@example.com' });
</script>`;
}

/** Google Tag Manager: a Custom HTML tag on All Pages, and one on the purchase event with dataLayer variables. */
export function gtmCode(target: InstallTarget): { allPages: string; purchase: string } {
  return {
    allPages: headCode(target),
    purchase: `<script>
  sp('event', 'purchase', {
    order_id: String({{DLV - ecommerce.transaction_id}}),
    value: Number({{DLV - ecommerce.value}}),
    currency: {{DLV - ecommerce.currency}}
  });
</script>`,
  };
}

const PROXY_PATH = '/_sp';

/** The tag for a reverse-proxied or CNAME set-up: the script and the collector under the shop's own address. */
export function firstPartyTag(target: InstallTarget, base: string): string {
  return `<script>${SP_STUB}</script>\n<script async src="${base}/p.js" data-endpoint="${base}/p/e" data-store="${target.storeKey}"></script>`;
}

/** nginx on the shop's own server: /_sp/ forwarded to StorePulse. */
export function nginxCode(target: InstallTarget): string {
  const upstream = new URL(target.pixelUrl, 'https://app.example.com');
  return `# StorePulse under the shop's own domain: https://<shop>${PROXY_PATH}/p.js and ${PROXY_PATH}/p/e
location ${PROXY_PATH}/ {
  proxy_pass ${upstream.origin}/;
  proxy_set_header Host ${upstream.host};
  # With TRUST_PROXY on StorePulse: the cookie is then set for the shop's own domain.
  proxy_set_header X-Forwarded-Host $host;
  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
  proxy_set_header X-Forwarded-Proto $scheme;
  proxy_ssl_server_name on;
}`;
}

/** A Cloudflare Worker on the route <shop>/_sp/*. */
export function cloudflareWorkerCode(target: InstallTarget): string {
  const upstream = new URL(target.pixelUrl, 'https://app.example.com');
  return `// StorePulse under the shop's own domain: a Worker on the route  <shop>${PROXY_PATH}/*
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const target = new URL(url.pathname.slice('${PROXY_PATH}'.length) + url.search, '${upstream.origin}');
    const headers = new Headers(request.headers);
    headers.set('X-Forwarded-For', request.headers.get('CF-Connecting-IP') || '');
    headers.set('X-Forwarded-Host', url.host);
    return fetch(target, { method: request.method, headers, body: request.body, redirect: 'manual' });
  },
};`;
}

export const FIRST_PARTY_PROXY_PATH = PROXY_PATH;
