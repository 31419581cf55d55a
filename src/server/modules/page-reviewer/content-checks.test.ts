import { expect, it } from 'vitest';
import type { Finding } from '../../../shared/page-reviewer.ts';
import { checkContent } from './content-checks.ts';

// The HTML checks on cheerio fixtures: each check's finding, severity and evidence.

const page = (head: string, body: string) => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const find = (html: string, code: Finding['code']) => checkContent(html, 'https://shop.example/p/1').findings.find((item) => item.code === code);

it('checks the title (30-60) and meta description (70-160) lengths', () => {
  expect(find(page('<title>A title of exactly thirty char</title>', ''), 'title_length')).toMatchObject({ severity: 'pass', evidence: { value: '30: A title of exactly thirty char' } });
  expect(find(page(`<title>${'x'.repeat(61)}</title>`, ''), 'title_length')?.severity).toBe('low');
  expect(find(page('', ''), 'title_length')?.severity).toBe('high');
  expect(find(page(`<meta name="description" content="${'d'.repeat(70)}">`, ''), 'meta_description')?.severity).toBe('pass');
  expect(find(page(`<meta name="description" content="${'d'.repeat(161)}">`, ''), 'meta_description')?.severity).toBe('low');
  expect(find(page('', ''), 'meta_description')).toMatchObject({ severity: 'medium', evidence: { value: null } });
});

it('wants exactly one H1', () => {
  expect(find(page('', '<h1>One</h1>'), 'h1')).toMatchObject({ severity: 'pass', evidence: { value: 'One' } });
  expect(find(page('', '<h1>One</h1><h1>Two</h1>'), 'h1')).toMatchObject({ severity: 'low', evidence: { value: '2' } });
  expect(find(page('', '<h2>None</h2>'), 'h1')).toMatchObject({ severity: 'high', evidence: { value: '0' } });
});

it('reads Product JSON-LD (also inside @graph) and wants the offer price and availability', () => {
  const ld = (json: unknown) => page(`<script type="application/ld+json">${JSON.stringify(json)}</script>`, '');
  expect(find(ld({ '@graph': [{ '@type': 'WebPage' }, { '@type': 'Product', offers: [{ '@type': 'Offer', price: 19.9, priceCurrency: 'EUR', availability: 'https://schema.org/InStock' }] }] }), 'product_jsonld'))
    .toMatchObject({ severity: 'pass', evidence: { value: '19.9 EUR · InStock' } });
  expect(find(ld({ '@type': 'Product', offers: { '@type': 'Offer', price: '5' } }), 'product_jsonld')).toMatchObject({ severity: 'medium', evidence: { value: 'missing: availability' } });
  expect(find(ld({ '@type': 'Organization' }), 'product_jsonld')?.severity).toBe('high');
  expect(find(page('<script type="application/ld+json">{not json</script>', ''), 'product_jsonld')?.severity).toBe('high');
});

it('counts images without alt text (an empty alt is a decorative image, fine)', () => {
  expect(find(page('', '<img src="/a.jpg" alt=""><img src="/b.jpg" alt="Shoe">'), 'image_alt')).toMatchObject({ severity: 'pass', evidence: { value: '0/2' } });
  expect(find(page('', '<img src="/a.jpg"><img src="/b.jpg" alt="Shoe"><img src="/c.jpg" alt="x">'), 'image_alt')).toMatchObject({ severity: 'low', evidence: { element: 'img[src="/a.jpg"]', value: '1/3' } });
});

it('looks for trust signals: reviews, returns, secure checkout', () => {
  expect(find(page('', '<p>4.8 ★ from 300 reviews. Free returns. Secure checkout.</p>'), 'trust_signals')).toMatchObject({ severity: 'pass', evidence: { value: 'reviews, returns, secureCheckout' } });
  expect(find(page('', '<p>Free returns within 30 days.</p>'), 'trust_signals')).toMatchObject({ severity: 'medium', evidence: { value: 'returns' } });
  expect(find(page('', '<p>Buy it.</p>'), 'trust_signals')?.severity).toBe('high');
});

it('wants a mobile viewport meta tag', () => {
  expect(find(page('<meta name="viewport" content="width=device-width, initial-scale=1">', ''), 'viewport_meta')?.severity).toBe('pass');
  expect(find(page('<meta name="viewport" content="width=1024">', ''), 'viewport_meta')?.severity).toBe('high');
});

it('rates readability of the main text, leaving out navigation and scripts', () => {
  const easy = 'We make shoes. They are light. You can run far. The sole grips well. Try them on. Send them back if they do not fit. It is free. ';
  const result = checkContent(page('', `<nav>Home Shop Extraordinarily complicated navigational terminology</nav><main><p>${easy.repeat(2)}</p><script>var x = 1;</script></main>`), 'https://shop.example/');
  expect(result.findings.find((item) => item.code === 'readability')?.severity).toBe('pass');
  expect(result.fleschReadingEase).toBeGreaterThan(90);
  const hard = 'Notwithstanding considerable organisational complexities, our comprehensively engineered footwear incorporates revolutionary polyurethane technologies facilitating unprecedented biomechanical optimisation. ';
  expect(find(page('', `<main><p>${hard.repeat(3)}</p></main>`), 'readability')?.severity).toBe('medium');
});

it('collects the distinct http(s) links of the page, resolved and without fragments', () => {
  const { links } = checkContent(page('', '<a href="/a">A</a><a href="/a#x">A again</a><a href="mailto:x@y.z">Mail</a><a href="https://other.example/b">B</a>'), 'https://shop.example/p/1');
  expect(links).toEqual(['https://shop.example/a', 'https://other.example/b']);
});
