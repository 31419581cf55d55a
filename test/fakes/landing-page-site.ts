import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';

// A loopback "shop" for the landing page reviewer's tests (Vitest and Playwright):
// - /weak: a product page with the classic faults: a too-short title, no meta description, no H1, no
//   Product JSON-LD, an image without alt text, a broken link, and a hero image that arrives late
//   (HERO_DELAY_MS), so its Largest Contentful Paint is slow.
// - /strong: the same product done right (title and description lengths, one H1, Product JSON-LD with
//   price and availability, trust signals, alt texts, a call to action in the first viewport).
// - /held: never answers (a review that stays running, then fails when the fetch times out).

export const HERO_DELAY_MS = 4500;

/** A solid-colour PNG of the given size (big enough to be the page's largest paint). */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).fill(Buffer.from(rgb))]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

const HERO = solidPng(400, 300, [249, 115, 22]);

const WEAK_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;font:12px sans-serif">
<img src="/hero.png" width="400" height="300" style="display:block;width:100%;height:auto">
<div style="padding:8px"><span style="font-size:18px">Trail Runner 2</span>
<p>Light shoe for long runs. Grippy sole. Soft foam.</p>
<button type="button">Add to cart</button>
<p><a href="/strong">See the new model</a> · <a href="/missing">Size guide</a></p></div>
</body></html>`;

const STRONG_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Trail Runner 2 – light trail running shoe | Example Shop</title>
<meta name="description" content="The Trail Runner 2 weighs 240 g, grips wet rock and ships free in 2 days. Free 30-day returns and secure checkout.">
<meta name="viewport" content="width=device-width, initial-scale=1">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail Runner 2","image":"/hero-small.png",
"aggregateRating":{"@type":"AggregateRating","ratingValue":"4.7","reviewCount":"212"},
"offers":{"@type":"Offer","price":"129.00","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}</script></head>
<body style="margin:0;font:16px sans-serif"><main style="padding:12px">
<h1>Trail Runner 2</h1>
<img src="/hero-small.png" alt="Trail Runner 2, side view" width="200" height="150">
<p>This shoe is light. It grips well on wet rock. You can run far in it. The foam is soft and the fit is snug.</p>
<p><a href="/buy" style="display:inline-block;padding:12px;background:#f97316;color:#fff">Buy now – €129</a></p>
<p>★★★★★ 212 reviews · Free 30-day returns · Secure checkout with SSL</p>
<p>We ship in two days. If the size is wrong, send it back. We pay for the return. It is that simple.</p>
</main></body></html>`;

export interface LandingPageSite {
  origin: string;
  port: number;
  close(): Promise<void>;
}

export async function startLandingPageSite(port = 0): Promise<LandingPageSite> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const html = (body: string) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (path === '/weak') return html(WEAK_PAGE);
    if (path === '/strong') return html(STRONG_PAGE);
    if (path === '/buy') return html('<!doctype html><title>Cart</title><p>Cart</p>');
    // Never answers: a review of it stays at its first step until the fetch gives up (then it fails).
    if (path === '/held') return;
    if (path === '/hero.png') {
      // The server is slow to send the hero: the page's largest paint comes late.
      const timer = setTimeout(() => {
        response.setHeader('content-type', 'image/png');
        response.end(HERO);
      }, HERO_DELAY_MS);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/hero-small.png') {
      response.setHeader('content-type', 'image/png');
      return response.end(solidPng(200, 150, [59, 130, 246]));
    }
    response.statusCode = 404;
    response.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${actual}`,
    port: actual,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
