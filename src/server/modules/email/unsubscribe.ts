import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { z } from 'zod';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { MetaCommentSettings } from '../meta-comments/meta-comments.entities.ts';
import { PriceTrackedUrl } from '../price-tracker/price-tracker.entities.ts';
import { SavedReport } from '../reports/saved-report.entity.ts';
import { User } from '../users/user.entity.ts';

// One-click unsubscribe (RFC 2369 List-Unsubscribe + RFC 8058 List-Unsubscribe-Post) for mail people
// can opt out of: a scheduled report's recipient stops receiving that report; a user's marketing and
// alert mail: a store's anomaly alerts, competitor price alerts or comment complaint notices are switched off (the switches the
// owner turned them on with); marketing mail follows the user's marketing-emails opt-in, which the
// link turns off. The address carries its
// target signed with a key derived from the session secret, so it works without signing in and cannot
// be pointed at anyone else. Transactional mail (password reset, e-mail change, invitations) has none.

export const unsubscribeTarget = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('report'), storeId: z.number().int(), reportId: z.number().int(), email: z.string() }),
  z.object({ kind: z.literal('marketing'), userId: z.number().int() }),
  z.object({ kind: z.literal('anomaly_alerts'), storeId: z.number().int() }),
  z.object({ kind: z.literal('price_alerts'), storeId: z.number().int() }),
  z.object({ kind: z.literal('comment_complaints'), storeId: z.number().int() }),
]);
export type UnsubscribeTarget = z.infer<typeof unsubscribeTarget>;

export const UNSUBSCRIBE_PATH = '/api/unsubscribe';

let signingKey: Buffer | null = null;

/** The app sets it at start from the session secret (app.ts). */
export function configureUnsubscribeSigning(sessionSecret: string): void {
  signingKey = createHmac('sha256', sessionSecret).update('storepulse unsubscribe links').digest();
}

function signature(payload: string): Buffer {
  if (!signingKey) throw new Error('Unsubscribe links are not configured (configureUnsubscribeSigning)');
  return createHmac('sha256', signingKey).update(payload).digest();
}

export function unsubscribeToken(target: UnsubscribeTarget): string {
  const payload = Buffer.from(JSON.stringify(target)).toString('base64url');
  return `${payload}.${signature(payload).toString('base64url')}`;
}

export function unsubscribeUrl(baseUrl: string, target: UnsubscribeTarget): string {
  return `${baseUrl.replace(/\/+$/, '')}${UNSUBSCRIBE_PATH}?token=${unsubscribeToken(target)}`;
}

/** The target of a genuine token; null for a forged, altered or malformed one. */
export function verifyUnsubscribeToken(token: string): UnsubscribeTarget | null {
  const [payload, given, extra] = token.split('.');
  if (!payload || !given || extra !== undefined) return null;
  const expected = signature(payload);
  const received = Buffer.from(given, 'base64url');
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) return null;
  try {
    const parsed = unsubscribeTarget.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Applies an unsubscribe; repeating it changes nothing. */
export async function unsubscribe(em: EntityManager, target: UnsubscribeTarget): Promise<void> {
  if (target.kind === 'marketing') {
    await em.nativeUpdate(User, { id: target.userId }, { marketingEmails: false });
    return;
  }
  if (target.kind === 'anomaly_alerts') {
    await sqlRunner(em).run(`update anomaly_settings set email_alerts = false, updated_at = now() where store_id = $1`, [target.storeId]);
    return;
  }
  if (target.kind === 'comment_complaints') {
    await em.nativeUpdate(MetaCommentSettings, { store: target.storeId }, { notifyComplaints: false });
    return;
  }
  if (target.kind === 'price_alerts') {
    await em.nativeUpdate(PriceTrackedUrl, { store: target.storeId }, { emailAlerts: false });
    return;
  }
  await em.transactional(async (tx) => {
    const report = await tx.findOne(SavedReport, { store: target.storeId, id: target.reportId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!report) return;
    const remaining = report.recipients.filter((recipient) => recipient.toLowerCase() !== target.email.toLowerCase());
    if (remaining.length !== report.recipients.length) report.recipients = remaining;
  });
}
