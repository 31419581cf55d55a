import type { FeedItem } from './feed-rules.ts';

// Google's feed formats (https://support.google.com/merchants/answer/7052112 and "RSS 2.0 and Atom 1.0
// specifications" https://support.google.com/merchants/answer/160589): an RSS 2.0 channel whose items
// carry the attributes as elements of the g: namespace http://base.google.com/ns/1.0, or a tab-separated
// file whose header row names the attributes. Empty values are left out of the XML.

export const GOOGLE_NAMESPACE = 'http://base.google.com/ns/1.0';

/** Characters XML 1.0 does not allow at all (a product title pasted from a PDF may hold them). */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXml(text: string): string {
  return text.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** "12.99 GBP": every currency the app supports has 2 decimals. */
export function feedPrice(item: Pick<FeedItem, 'priceMinor' | 'currency'>): string {
  return `${(item.priceMinor / 100).toFixed(2)} ${item.currency}`;
}

function attributesOf(item: FeedItem): [string, string][] {
  return [
    ['id', item.id],
    ['title', item.title],
    ['description', item.description],
    ['link', item.link],
    ['image_link', item.imageLink],
    ['availability', item.availability],
    ['price', feedPrice(item)],
    ['brand', item.brand],
    ['gtin', item.gtin],
    ['mpn', item.mpn],
    ['condition', item.condition],
  ];
}

export function feedXml(channel: { title: string; link: string }, items: FeedItem[]): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<rss version="2.0" xmlns:g="${GOOGLE_NAMESPACE}">`,
    '<channel>',
    `<title>${escapeXml(channel.title)}</title>`,
    `<link>${escapeXml(channel.link)}</link>`,
    `<description>${escapeXml(`${channel.title} products`)}</description>`,
  ];
  for (const item of items) {
    lines.push('<item>');
    for (const [name, value] of attributesOf(item)) if (value.trim()) lines.push(`<g:${name}>${escapeXml(value)}</g:${name}>`);
    lines.push('</item>');
  }
  lines.push('</channel>', '</rss>', '');
  return lines.join('\n');
}

/** Tabs and line breaks would split a cell: they become spaces. */
function tsvCell(value: string): string {
  return value.replace(NOT_XML, '').replace(/[\t\r\n]+/g, ' ');
}

export function feedTsv(items: FeedItem[]): string {
  const header = attributesOf({ id: '', title: '', description: '', link: '', imageLink: '', availability: 'in_stock', priceMinor: 0, currency: '', brand: '', gtin: '', mpn: '', condition: '' }).map(([name]) => name);
  const rows = items.map((item) => attributesOf(item).map(([, value]) => tsvCell(value)).join('\t'));
  return [header.join('\t'), ...rows, ''].join('\n');
}
