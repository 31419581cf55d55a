import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { anySiteCode, gtmCode, headCode, nginxCode, shopifyCustomPixelCode, shopifyThemeCode, wooCommerceCode, type InstallTarget } from './install-code.ts';
import { parseDomain } from './settings-card.tsx';

const target: InstallTarget = {
  storeKey: 'sp_7_abcdefghijklmnopqrst',
  snippet: '<script async src="https://app.example.com/p.js" data-store="sp_7_abcdefghijklmnopqrst"></script>',
  pixelUrl: 'https://app.example.com/p.js',
  collectorUrl: 'https://app.example.com/p/e',
};

describe('install code', () => {
  it("puts the store's tag after the stub in every page-level snippet", () => {
    for (const code of [headCode(target), shopifyThemeCode(target), anySiteCode(target), gtmCode(target).allPages]) {
      expect(code).toContain(target.snippet);
      expect(code.indexOf('window.sp = window.sp ||')).toBeLessThan(code.indexOf(target.snippet));
    }
    expect(wooCommerceCode(target)).toContain(`echo '${target.snippet}';`);
  });

  it("the Shopify custom pixel is valid JavaScript that maps Shopify's events to ours and posts to the collector", async () => {
    const code = shopifyCustomPixelCode(target);
    const subscribed: Record<string, (event: unknown) => unknown> = {};
    const sent: { url: string; body: any }[] = [];
    const run = new Function('analytics', 'browser', 'fetch', code);
    run(
      { subscribe: (name: string, callback: (event: unknown) => unknown) => (subscribed[name] = callback) },
      { cookie: { get: async () => 'visitor_cookie_01' } },
      async (url: string, init: { body: string }) => sent.push({ url, body: JSON.parse(init.body) }),
    );
    expect(Object.keys(subscribed).sort()).toEqual(['checkout_completed', 'checkout_started', 'page_viewed', 'product_added_to_cart', 'product_viewed']);
    const context = { document: { location: { href: 'https://shop.example.com/checkouts/cn/abc/thank-you', pathname: '/checkouts/cn/abc/thank-you' }, referrer: '', title: 'Thanks' } };
    const variant = { id: '11', title: 'Blue', price: { amount: 12.5, currencyCode: 'EUR' }, product: { id: '99', title: 'Mug' } };
    await subscribed.checkout_completed!({
      id: 'sh-0f3a-4b2c-9d1e', clientId: 'client-1234', timestamp: '2026-11-28T05:00:00.000Z', context,
      data: { checkout: { token: 'tok123', currencyCode: 'EUR', email: ' Buyer@Example.com ', totalPrice: { amount: 25 }, order: { id: 'gid://shopify/OrderIdentity/5001' }, lineItems: [{ title: 'Mug', quantity: 2, variant }] } },
    });
    // The pixel code hashes the e-mail (crypto.subtle, asynchronous) before it posts.
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]!.url).toBe(target.collectorUrl);
    expect(sent[0]!.body).toMatchObject({ key: target.storeKey, aid: 'visitor_cookie_01', consent: 1 });
    expect(sent[0]!.body.events[0]).toMatchObject({
      name: 'purchase',
      id: 'sh-0f3a-4b2c-9d1e',
      url: context.document.location.href,
      props: { order_id: '5001', value: 25, currency: 'EUR', checkout_token: 'tok123', items: [{ id: '99', name: 'Mug', variant: 'Blue', price: 12.5, quantity: 2 }] },
    });
    // The trimmed, lower-case address hashed as the collector's server API does it.
    expect(sent[0]!.body.events[0].props.email_hash).toBe(createHash('sha256').update('buyer@example.com').digest('hex'));
  });

  it('forwards to StorePulse with the host the cookie needs', () => {
    expect(nginxCode(target)).toContain('proxy_pass https://app.example.com/;');
    expect(nginxCode(target)).toContain('proxy_set_header X-Forwarded-Host $host;');
  });
});

describe('parseDomain', () => {
  it.each([
    ['shop.example.com', 'shop.example.com'],
    ['  Shop.Example.COM ', 'shop.example.com'],
    ['https://www.shop.example/checkout?x=1', 'www.shop.example'],
    ['shop.example.com.', 'shop.example.com'],
  ])('takes %j as %j', (text, domain) => expect(parseDomain(text)).toEqual({ domain }));

  it.each([['not a domain!'], ['shop.example.com/path'], ['shop.example.com:8080'], ['-bad.example'], ['http://']])('refuses %j', (text) => expect(parseDomain(text)).toEqual({ error: 'invalid' }));

  it('says when nothing was typed', () => expect(parseDomain('   ')).toEqual({ error: 'empty' }));
});
