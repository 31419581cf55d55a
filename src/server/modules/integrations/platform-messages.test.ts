import { describe, expect, it } from 'vitest';
import { ConnectorRequestError, MalformedResponseError } from '../../connectors/connector.ts';
import { refusalMessage, syncFailureMessage, unreachableMessage } from './platform-messages.ts';

describe('messages about a platform', () => {
  it('name the platform once and say what to do', () => {
    // A reason that names its platform and gives advice is kept as it is.
    expect(refusalMessage('klaviyo', 'Klaviyo refused the private API key: it was revoked, deleted or mistyped. Create a new private key and reconnect.', 'Check the credentials and try again.')).toBe(
      'Klaviyo refused the private API key: it was revoked, deleted or mistyped. Create a new private key and reconnect.',
    );
    // The generic HTTP reasons say "The platform": it becomes the platform's name, and advice follows.
    expect(refusalMessage('tiktokads', 'The platform refused the credentials (401).', 'Check the credentials and try again.')).toBe('TikTok Ads refused the credentials (401). Check the credentials and try again.');
    // Meta's reasons speak of Facebook: not named twice.
    expect(refusalMessage('metaads', 'This Facebook user has no ad account it can read.', 'Start connecting again.')).toBe('This Facebook user has no ad account it can read. Start connecting again.');
    expect(refusalMessage('tiktokads', 'Advertiser 42 was not authorized for this app', 'Start connecting again.')).toBe('TikTok Ads: Advertiser 42 was not authorized for this app. Start connecting again.');
  });

  it('describe a platform that keeps failing without its internals', () => {
    expect(unreachableMessage('klaviyo', new ConnectorRequestError('klaviyo', 503, 'gave up after 5 attempts: HTTP 503'), 'while checking the credentials', 'Try again in a moment.')).toBe(
      'Klaviyo kept failing (HTTP 503) while checking the credentials. Try again in a moment.',
    );
    expect(syncFailureMessage('shopify', new MalformedResponseError('shopify', 'data.orders: Required'))).toBe('Shopify answered something we could not read during the sync. The next sync tries again.');
    expect(syncFailureMessage('shopify', new ConnectorRequestError('shopify', 402, 'The Shopify store is frozen (its plan is unpaid), so its data cannot be read (402).'))).toBe(
      'The Shopify store is frozen (its plan is unpaid), so its data cannot be read (402). The next sync tries again.',
    );
  });
});
