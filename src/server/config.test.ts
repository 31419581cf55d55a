import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('refuses to start in production without PUBLIC_URL, saying what to set', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      'Invalid environment: PUBLIC_URL is required when NODE_ENV=production. Set it to the address users reach the app at (e.g. https://app.example.com)',
    );
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://app.example.com/' }).publicUrl).toBe('https://app.example.com');
    // Development and tests keep working without it (links then use the first origin seen).
    expect(loadConfig({ NODE_ENV: 'development' }).publicUrl).toBeUndefined();
  });

  it('accepts only an http or https PUBLIC_URL', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'javascript:alert(1)' })).toThrow('PUBLIC_URL must be an http or https address');
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://files.example.com' })).toThrow('PUBLIC_URL must be an http or https address');
  });

  it('reads ALLOWED_HOSTS as lower-case host names with optional ports, and refuses anything else', () => {
    expect(loadConfig({}).allowedHosts).toBeUndefined();
    expect(loadConfig({ ALLOWED_HOSTS: ' App.Example.com , 192.168.1.20:3000,[::1]:3000' }).allowedHosts).toEqual(['app.example.com', '192.168.1.20:3000', '[::1]:3000']);
    expect(() => loadConfig({ ALLOWED_HOSTS: 'app.example.com/path' })).toThrow('ALLOWED_HOSTS entry "app.example.com/path" is not a host name');
    expect(() => loadConfig({ ALLOWED_HOSTS: 'user@app.example.com' })).toThrow('is not a host name');
  });

  it('ALLOW_TEST_PAYMENTS is off unless said so', () => {
    expect(loadConfig({}).allowTestPayments).toBe(false);
    expect(loadConfig({ ALLOW_TEST_PAYMENTS: 'true' }).allowTestPayments).toBe(true);
    expect(() => loadConfig({ ALLOW_TEST_PAYMENTS: 'maybe' })).toThrow('ALLOW_TEST_PAYMENTS');
  });

  it('SCHEDULED_SYNCS is on unless turned off', () => {
    expect(loadConfig({}).scheduledSyncs).toBe(true);
    expect(loadConfig({ SCHEDULED_SYNCS: 'false' }).scheduledSyncs).toBe(false);
    expect(() => loadConfig({ SCHEDULED_SYNCS: 'sometimes' })).toThrow('SCHEDULED_SYNCS');
  });

  it('reads the affiliate settings: referral window 60 days, last link wins, payouts from 5000 pence, whole positive numbers only', () => {
    expect(loadConfig({}).affiliates).toEqual({ cookieDays: 60, payoutThresholdMinor: 5000, attribution: 'last' });
    expect(loadConfig({ AFFILIATE_COOKIE_DAYS: '30', AFFILIATE_PAYOUT_THRESHOLD_PENCE: '2500', AFFILIATE_ATTRIBUTION: 'first' }).affiliates).toEqual({ cookieDays: 30, payoutThresholdMinor: 2500, attribution: 'first' });
    expect(() => loadConfig({ AFFILIATE_ATTRIBUTION: 'middle' })).toThrow('AFFILIATE_ATTRIBUTION must be last or first');
    expect(() => loadConfig({ AFFILIATE_COOKIE_DAYS: '0' })).toThrow('AFFILIATE_COOKIE_DAYS must be at least 1');
    expect(() => loadConfig({ AFFILIATE_PAYOUT_THRESHOLD_PENCE: '50.5' })).toThrow('AFFILIATE_PAYOUT_THRESHOLD_PENCE must be a whole number of pence');
  });

  it('PAYMENT_PROVIDER=stripe needs the secret key and the webhook secret, each in its own form', () => {
    expect(loadConfig({}).paymentProvider).toBe('test');
    expect(loadConfig({}).stripe).toBeNull();
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'paypal' })).toThrow('PAYMENT_PROVIDER must be test or stripe');
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'stripe' })).toThrow('PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY');
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'pk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' })).toThrow('STRIPE_SECRET_KEY must be a Stripe secret');
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'abc' })).toThrow('STRIPE_WEBHOOK_SECRET must be the endpoint signing secret');
    const config = loadConfig({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_API_BASE: 'http://127.0.0.1:4861' });
    expect(config.stripe).toMatchObject({ secretKey: 'sk_test_abc', webhookSecret: 'whsec_abc' });
    expect(config.stripe!.apiBase!.port).toBe('4861');
  });
});
