import { describe, expect, it } from 'vitest';
import { connectionRows, connectionTone, formatLastChecked } from './connection-status-rows.ts';

const entry = (platform: string, connected: boolean, lastChecked: string | null = null) => ({ platform, connected, lastChecked });

describe('connection status rows', () => {
  it('lists every connected platform when any is connected', () => {
    const rows = connectionRows([entry('woocommerce', false), entry('googleads', true), entry('klaviyo', false), entry('metaads', true)]);
    expect(rows.map((row) => row.platform)).toEqual(['googleads', 'metaads']);
  });

  it('otherwise shows the WooCommerce entry, otherwise the first entry', () => {
    expect(connectionRows([entry('shopify', false), entry('woocommerce', false)]).map((row) => row.platform)).toEqual(['woocommerce']);
    expect(connectionRows([entry('tiktokads', false), entry('shopify', false)]).map((row) => row.platform)).toEqual(['tiktokads']);
    expect(connectionRows([])).toEqual([]);
  });

  it('is pulsing while loading, green with any connection, yellow without', () => {
    expect(connectionTone(undefined, true)).toBe('loading');
    expect(connectionTone([entry('shopify', false), entry('klaviyo', true)], false)).toBe('connected');
    expect(connectionTone([entry('shopify', false)], false)).toBe('disconnected');
    expect(connectionTone([], false)).toBe('disconnected');
  });

  it('formats the last check as short month, day, hour and minute in the language; null when missing or invalid', () => {
    const at = '2026-03-05T14:07:00';
    expect(formatLastChecked(at, 'en-US')).toBe('Mar 5, 2:07 PM');
    expect(formatLastChecked(at, 'de')).toBe('5. März, 14:07');
    expect(formatLastChecked(null, 'en')).toBeNull();
    expect(formatLastChecked('not a date', 'en')).toBeNull();
  });
});
