import { describe, expect, it } from 'vitest';
import { channelOf, withLandingSiteParameters } from './channel.ts';

describe('channelOf', () => {
  it.each([
    [{ gclid: 'abc' }, 'googleads'],
    [{ fbclid: 'abc' }, 'metaads'],
    [{ msclkid: 'abc' }, 'bingads'],
    [{ ttclid: 'abc' }, 'tiktokads'],
    // A click id wins over UTM fields and the referrer.
    [{ gclid: 'abc', utmSource: 'facebook', utmMedium: 'paid', referrer: 'https://www.bing.com/' }, 'googleads'],
  ])('click ids: %j -> %s', (fields, channel) => {
    expect(channelOf(fields)).toBe(channel);
  });

  it.each([
    [{ utmSource: 'google', utmMedium: 'cpc' }, 'googleads'],
    [{ utmSource: 'Google', utmMedium: 'CPC' }, 'googleads'],
    [{ utmSource: 'google', utmMedium: 'paid_search' }, 'googleads'],
    [{ utmSource: 'google', utmMedium: 'organic' }, 'organic_search'],
    [{ utmSource: 'facebook', utmMedium: 'paid' }, 'metaads'],
    [{ utmSource: 'instagram', utmMedium: 'paid_social' }, 'metaads'],
    [{ utmSource: 'meta', utmMedium: 'cpm' }, 'metaads'],
    [{ utmSource: 'facebook', utmMedium: 'social' }, 'organic_social'],
    [{ utmSource: 'bing', utmMedium: 'cpc' }, 'bingads'],
    [{ utmSource: 'bing' }, 'bingads'],
    [{ utmSource: 'tiktok', utmMedium: 'paid' }, 'tiktokads'],
    [{ utmSource: 'klaviyo', utmMedium: 'email' }, 'klaviyo'],
    [{ utmSource: 'omnisend', utmMedium: 'email' }, 'omnisend'],
    [{ utmSource: 'mailchimp', utmMedium: 'email' }, 'mailchimp'],
    [{ utmSource: 'newsletter-tool', utmMedium: 'email' }, 'email'],
    [{ utmMedium: 'email' }, 'email'],
  ])('UTM: %j -> %s', (fields, channel) => {
    expect(channelOf(fields)).toBe(channel);
  });

  it.each([
    ['https://www.google.com/', 'organic_search'],
    ['https://www.google.co.uk/search?q=tent', 'organic_search'],
    ['https://duckduckgo.com/', 'organic_search'],
    ['https://www.bing.com/search?q=x', 'organic_search'],
    ['https://l.facebook.com/l.php?u=x', 'organic_social'],
    ['https://www.instagram.com/', 'organic_social'],
    ['https://t.co/abc', 'organic_social'],
    ['https://www.reddit.com/r/camping', 'organic_social'],
    ['https://mail.google.com/mail/u/0/', 'email'],
    ['https://outdoorblog.example/best-tents', 'referral'],
  ])('referrer %s -> %s', (referrer, channel) => {
    expect(channelOf({ referrer })).toBe(channel);
  });

  it('ignores referrers that are the store itself or a payment page, and falls back to direct', () => {
    expect(channelOf({ referrer: 'https://shop.example/cart', landingSite: 'https://shop.example/products/tent' })).toBe('direct');
    expect(channelOf({ referrer: 'https://www.paypal.com/checkoutnow' })).toBe('direct');
    expect(channelOf({})).toBe('direct');
    expect(channelOf({ referrer: '', landingSite: '/' })).toBe('direct');
    expect(channelOf({ referrer: 'not a url at all' })).toBe('direct');
  });

  it('an unknown UTM source without a referrer counts as a referral', () => {
    expect(channelOf({ utmSource: 'partner-site' })).toBe('referral');
    expect(channelOf({ utmSource: 'partner-site', referrer: 'https://www.google.com/' })).toBe('organic_search');
  });

  it("reads UTM fields and click ids from the landing site's query string", () => {
    expect(channelOf({ landingSite: '/products/tent?utm_source=google&utm_medium=cpc&utm_campaign=summer' })).toBe('googleads');
    expect(channelOf({ landingSite: 'https://shop.example/?fbclid=IwAR123' })).toBe('metaads');
    expect(channelOf({ landingSite: '/?utm_source=klaviyo&utm_medium=email', referrer: 'https://www.google.com/' })).toBe('klaviyo');
    // The query ends where the fragment starts; a "?" inside the fragment is not a query.
    expect(withLandingSiteParameters({ landingSite: '/products/tent?utm_source=google&utm_medium=cpc&utm_term=two%20words#reviews' })).toMatchObject({
      utmSource: 'google',
      utmMedium: 'cpc',
      utmTerm: 'two words',
    });
    expect(channelOf({ landingSite: '/products/tent#reviews?utm_source=google&utm_medium=cpc' })).toBe('direct');
  });

  it('fields sent by the platform win over the landing site parameters', () => {
    const fields = withLandingSiteParameters({ landingSite: '/?utm_source=google&utm_medium=cpc&utm_campaign=a', utmCampaign: 'b', utmTerm: '  ' });
    expect(fields).toMatchObject({ utmSource: 'google', utmMedium: 'cpc', utmCampaign: 'b', utmTerm: null, gclid: null, landingSite: '/?utm_source=google&utm_medium=cpc&utm_campaign=a' });
  });
});
