import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback "competitor shop" for the price tracker's tests and e2e journey: product pages in every
// markup style the tracker reads, prices the test changes between checks, a robots.txt that disallows
// /private for StorePulseBot, and pages that fail the ways real shops do (HTTP error, no price, JSON).

export type CompetitorMarkup = 'json_ld' | 'json_ld_graph' | 'json_ld_aggregate' | 'microdata' | 'open_graph' | 'twitter_meta' | 'plain';
export const COMPETITOR_MARKUPS: readonly CompetitorMarkup[] = ['json_ld', 'json_ld_graph', 'json_ld_aggregate', 'microdata', 'open_graph', 'twitter_meta', 'plain'];

export interface ShopOffer {
  priceMinor: number;
  currency: string;
  inStock: boolean;
}

const decimal = (minor: number) => (minor / 100).toFixed(2);
/** "1.299,00 €" for EUR, "$1,299.00" for the others: both conventions the parser must read. */
function displayPrice(offer: ShopOffer): string {
  const [whole, cents] = decimal(offer.priceMinor).split('.') as [string, string];
  if (offer.currency === 'EUR') return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${cents} €`;
  return `${offer.currency === 'GBP' ? '£' : '$'}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

/** The HTML of one product page in `markup`. */
export function competitorShopPage(markup: CompetitorMarkup, offer: ShopOffer, name = 'Espresso Machine'): string {
  const availability = `https://schema.org/${offer.inStock ? 'InStock' : 'OutOfStock'}`;
  const jsonOffer = { '@type': 'Offer', price: decimal(offer.priceMinor), priceCurrency: offer.currency, availability };
  const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
  let head = '';
  let body = `<h1>${name}</h1>`;
  switch (markup) {
    case 'json_ld':
      head = ld({ '@context': 'https://schema.org', '@type': 'Product', name, offers: jsonOffer });
      break;
    case 'json_ld_graph':
      head = ld({ '@context': 'https://schema.org', '@graph': [{ '@type': 'WebSite', name: 'Rival' }, { '@type': 'Product', name, offers: [jsonOffer] }] });
      break;
    case 'json_ld_aggregate':
      head = ld([{ '@context': 'https://schema.org', '@type': 'Product', name, offers: { '@type': 'AggregateOffer', lowPrice: decimal(offer.priceMinor), highPrice: decimal(offer.priceMinor * 2), priceCurrency: offer.currency, availability, offerCount: 2 } }]);
      break;
    case 'microdata':
      body = `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">${name}</h1>
        <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
          <span itemprop="price" content="${decimal(offer.priceMinor)}">${displayPrice(offer)}</span>
          <meta itemprop="priceCurrency" content="${offer.currency}"><link itemprop="availability" href="${availability}">
        </div></div>`;
      break;
    case 'open_graph':
      head = `<meta property="og:type" content="product"><meta property="product:price:amount" content="${decimal(offer.priceMinor)}">
        <meta property="product:price:currency" content="${offer.currency}"><meta property="product:availability" content="${offer.inStock ? 'in stock' : 'out of stock'}">`;
      break;
    case 'twitter_meta':
      head = `<meta name="twitter:card" content="product"><meta name="twitter:label1" content="Price"><meta name="twitter:data1" content="${displayPrice(offer)}">`;
      break;
    case 'plain':
      body += `<p>Our price: <span class="price-now">${displayPrice(offer)}</span></p>${offer.inStock ? '<p>Ships tomorrow</p>' : '<p>Sold out</p>'}`;
      break;
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>${name}</title>${head}</head><body>${body}</body></html>`;
}

export interface CompetitorShop {
  origin: string;
  port: number;
  /** The offer each path serves; change it between checks. */
  offers: Map<string, { markup: CompetitorMarkup; offer: ShopOffer }>;
  /** Every path requested, in order, with when it arrived (ms since epoch). */
  requests: { path: string; at: number }[];
  url(path: string): string;
  close(): Promise<void>;
}

/** Starts the shop on 127.0.0.1 (`port` 0: any free port). Paths: /p/<markup> by default, /private/..., /broken, /no-price, /feed.json. */
export async function startCompetitorShop(port = 0): Promise<CompetitorShop> {
  const offers = new Map<string, { markup: CompetitorMarkup; offer: ShopOffer }>();
  for (const markup of COMPETITOR_MARKUPS) offers.set(`/p/${markup}`, { markup, offer: { priceMinor: 129_900, currency: 'EUR', inStock: true } });
  offers.set('/private/deal', { markup: 'json_ld', offer: { priceMinor: 100, currency: 'EUR', inStock: true } });
  const requests: { path: string; at: number }[] = [];
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    requests.push({ path, at: Date.now() });
    if (path === '/robots.txt') {
      response.setHeader('content-type', 'text/plain');
      response.end('User-agent: StorePulseBot\nDisallow: /private\n');
      return;
    }
    if (path === '/broken') {
      response.statusCode = 503;
      response.setHeader('content-type', 'text/html');
      response.end('<html><body>Down for maintenance</body></html>');
      return;
    }
    if (path === '/feed.json') {
      response.setHeader('content-type', 'application/json');
      response.end('{"price": 10}');
      return;
    }
    if (path === '/no-price') {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end('<html><head><title>About us</title></head><body><p>We love coffee.</p></body></html>');
      return;
    }
    const page = offers.get(path);
    if (!page) {
      response.statusCode = 404;
      response.setHeader('content-type', 'text/html');
      response.end('<html><body>Not found</body></html>');
      return;
    }
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(competitorShopPage(page.markup, page.offer));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actualPort = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${actualPort}`;
  return {
    origin,
    port: actualPort,
    offers,
    requests,
    url: (path) => `${origin}${path}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
