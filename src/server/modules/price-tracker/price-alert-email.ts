import type { EntityManager } from '@mikro-orm/postgresql';
import type { PriceAlert } from '../../../shared/price-tracker.ts';
import { loadConfig } from '../../config.ts';
import { sendEmail, storeOwnerContact } from '../email/email.service.ts';

// The optional e-mail of the price tracker's alerts (per tracked page, off by default): one e-mail per
// check that raised alerts, to the store's owner, through the e-mail outbox (template `price_alert`).

function alertLine(alert: PriceAlert): string {
  const price = alert.priceMinor === null ? '' : ` ${(alert.priceMinor / 100).toFixed(2)} ${alert.currency ?? ''}`.trimEnd();
  if (alert.kind === 'out_of_stock') return `- ${alert.domain} is out of stock for ${alert.productName} (${alert.url})`;
  return `- ${alert.domain} sells ${alert.productName} for${price}, ${Math.abs(alert.differencePercent ?? 0)} % below your price (${alert.url})`;
}

export async function sendPriceAlertEmail(em: EntityManager, storeId: number, alerts: PriceAlert[], log?: (message: string) => void): Promise<number | null> {
  if (alerts.length === 0) return null;
  const owner = await storeOwnerContact(em, storeId);
  if (!owner) return null;
  const publicUrl = (loadConfig().publicUrl ?? '').replace(/\/$/, '');
  const email = await sendEmail(em, {
    to: owner.email,
    template: 'price_alert',
    userId: owner.userId,
    variables: { storeName: owner.storeName, alerts: alerts.map(alertLine).join('\n'), trackerUrl: `${publicUrl}/price-tracker` },
    ...(publicUrl ? { unsubscribe: { target: { kind: 'price_alerts' as const, storeId }, baseUrl: publicUrl } } : {}),
  }, log);
  return email.id;
}
