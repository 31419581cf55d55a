import { PLATFORM_NAMES, type PlatformKey } from '../../../shared/platforms.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../../connectors/connector.ts';

// What the user reads when a platform refuses or fails: the platform named once (connectors' own
// reasons usually name it already: "Klaviyo refused the private API key: ... reconnect."), and what to
// do about it.

/** How connectors' reasons name each platform (Meta's speak of Facebook, Google Ads' of Google...). */
const MENTIONS: Record<PlatformKey, RegExp> = {
  woocommerce: /woocommerce|wordpress/i,
  shopify: /shopify/i,
  googleads: /google/i,
  metaads: /meta|facebook/i,
  bingads: /microsoft|bing/i,
  tiktokads: /tiktok/i,
  omnisend: /omnisend/i,
  klaviyo: /klaviyo/i,
  mailchimp: /mailchimp/i,
  email: /csv|file/i,
};

/** Words of a reason that already tell the user what to do. */
const ADVICE = /\b(re)?connect|\bcreate\b|\benter\b|\bcheck\b|\bgive\b|\bcopy\b|\bstart\b|\btry\b|\bupload\b|\buse\b|\bapprove\b|\bname\b/i;

/**
 * A connector's refusal as the user reads it: the platform named once ("The platform" becomes its
 * name; a reason that does not name it gets "<Platform>: " in front) and, when the reason gives no
 * advice, `advice` after it.
 */
export function refusalMessage(platform: PlatformKey, reason: string, advice: string): string {
  const name = PLATFORM_NAMES[platform];
  let message = reason.trim().replace(/^The platform\b/, name);
  if (!MENTIONS[platform].test(message) && !message.includes(name)) message = `${name}: ${message}`;
  if (!/[.!?]$/.test(message)) message += '.';
  return ADVICE.test(message) ? message : `${message} ${advice}`;
}

/**
 * The platform could not answer (errors after every retry, an unreadable answer): one sentence with
 * no internals. A request it refused outright keeps the connector's reason, which says why.
 */
export function unreachableMessage(platform: PlatformKey, error: ConnectorRequestError | MalformedResponseError, whatFailed: string, advice: string): string {
  const name = PLATFORM_NAMES[platform];
  if (error instanceof ConnectorRequestError && error.status > 0 && error.status < 500 && error.status !== 429) return refusalMessage(platform, error.detail, advice);
  const why = error instanceof MalformedResponseError ? 'answered something we could not read' : error.status === 0 ? 'could not be reached' : `kept failing (HTTP ${error.status})`;
  return `${name} ${why} ${whatFailed}. ${advice}`;
}

/** A failed sync's message for the card (which adds its own "Try Sync now" advice). */
export function syncFailureMessage(platform: PlatformKey, error: unknown): string {
  if (error instanceof ConnectorAuthError) return refusalMessage(platform, error.reason, `Reconnect ${PLATFORM_NAMES[platform]}.`);
  if (error instanceof ConnectorRequestError || error instanceof MalformedResponseError) {
    return unreachableMessage(platform, error, 'during the sync', 'The next sync tries again.');
  }
  return (error as Error)?.message ?? String(error);
}
