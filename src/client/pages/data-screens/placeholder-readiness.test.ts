import { describe, expect, it } from 'vitest';
import { placeholderReadiness, type StoreFacts } from './placeholder-readiness.ts';

const empty: StoreFacts = { orders: 0, adPlatforms: [], connected: [] };
// The demo store: a year of orders and three ad platforms' metrics, no connection rows.
const demo: StoreFacts = { orders: 10_000, adPlatforms: ['bingads', 'googleads', 'metaads'], connected: [] };

describe('placeholder screens', () => {
  it('ask an empty store to connect its platforms', () => {
    expect(placeholderReadiness('store', empty)).toBe('connect');
    expect(placeholderReadiness('metaads', empty)).toBe('connect');
    expect(placeholderReadiness('storeAndGoogleads', empty)).toBe('connect');
  });

  it('never tell a store with 10,000 orders to connect its store', () => {
    expect(placeholderReadiness('store', demo)).toBe('ready');
    expect(placeholderReadiness('metaads', demo)).toBe('ready');
    expect(placeholderReadiness('storeAndGoogleads', demo)).toBe('ready');
  });

  it('count a connected shop that has not synced an order yet as connected', () => {
    expect(placeholderReadiness('store', { ...empty, connected: ['shopify'] })).toBe('ready');
    expect(placeholderReadiness('store', { ...empty, connected: ['woocommerce'] })).toBe('ready');
    // An ad platform alone is not a shop.
    expect(placeholderReadiness('store', { ...empty, connected: ['googleads'] })).toBe('connect');
  });

  it('ask for the platform a screen works from when only that one is missing', () => {
    const shopOnly: StoreFacts = { orders: 10_000, adPlatforms: [], connected: ['shopify'] };
    expect(placeholderReadiness('metaads', shopOnly)).toBe('connect');
    expect(placeholderReadiness('storeAndGoogleads', shopOnly)).toBe('connect');
    expect(placeholderReadiness('storeAndGoogleads', { ...shopOnly, connected: ['shopify', 'googleads'] })).toBe('ready');
    expect(placeholderReadiness('metaads', { ...empty, adPlatforms: ['metaads'] })).toBe('ready');
  });
});
