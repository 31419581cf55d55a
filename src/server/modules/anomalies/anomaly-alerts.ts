import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnomalyItem } from '../../../shared/anomalies.ts';
import type { AnomalyAlertSettings, AnomalyLanguage } from '../../../shared/anomaly-panel.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { sendEmail } from '../email/email.service.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';
import { anomalyTexts, describeAnomaly, interpolate } from './anomaly-texts.ts';

// The optional e-mail alert for high-severity anomalies (README, "Anomaly insights: e-mail alerts"):
// a store setting, off by default, and the one function the detection job calls after a run.

export async function anomalyAlertSettings(em: EntityManager, store: StoreEntity): Promise<AnomalyAlertSettings> {
  const [row] = await sqlRunner(em).rows<{ emailAlerts: boolean; language: AnomalyLanguage }>(
    `select email_alerts as "emailAlerts", language from anomaly_settings where store_id = $1`,
    [store.id],
  );
  return row ?? { emailAlerts: false, language: 'en' };
}

export async function setAnomalyAlertSettings(em: EntityManager, store: StoreEntity, settings: AnomalyAlertSettings): Promise<AnomalyAlertSettings> {
  await sqlRunner(em).run(
    `insert into anomaly_settings (store_id, email_alerts, language) values ($1, $2, $3)
     on conflict (store_id) do update set email_alerts = excluded.email_alerts, language = excluded.language, updated_at = now()`,
    [store.id, settings.emailAlerts, settings.language],
  );
  return anomalyAlertSettings(em, store);
}

export interface AnomalyAlertResult {
  /** The outbox e-mail's id, or null when nothing was sent. */
  emailId: number | null;
  /** The anomalies the e-mail listed (high severity, not resolved, not e-mailed before). */
  anomalyIds: string[];
  reason: 'sent' | 'alerts_off' | 'nothing_new';
}

/**
 * Contract (the detection job calls it after each run, with the run's items or all current ones):
 * - `items` are the store's anomalies as `anomalies.list` returns them, rows of the `anomalies` table;
 * - only high-severity items that are not resolved count, and each anomaly is e-mailed at most once
 *   (recorded in anomaly_alerts_sent in the same transaction as the outbox row), so calling it again
 *   with the same items, or from a retried job, sends nothing;
 * - nothing is sent while the store's setting is off (the default);
 * - one e-mail per call to the store's owner, through the e-mail outbox (template `anomaly_alert`),
 *   written in the language the owner switched alerts on in; `publicUrl` makes the dashboard link absolute.
 */
export async function sendAnomalyAlert(
  em: EntityManager,
  store: StoreEntity,
  items: AnomalyItem[],
  options: { publicUrl?: string | null; log?: (message: string) => void } = {},
): Promise<AnomalyAlertResult> {
  const settings = await anomalyAlertSettings(em, store);
  if (!settings.emailAlerts) return { emailId: null, anomalyIds: [], reason: 'alerts_off' };
  const candidates = items.filter((item) => item.severity === 'high' && item.state !== 'resolved');
  if (candidates.length === 0) return { emailId: null, anomalyIds: [], reason: 'nothing_new' };
  return em.transactional(async (tx) => {
    const fresh = await sqlRunner(tx).rows<{ id: string }>(
      `insert into anomaly_alerts_sent (store_id, anomaly_id)
       select $1, a.id from anomalies a where a.store_id = $1 and a.id = any($2::bigint[]) and a.state <> 'resolved'
       on conflict do nothing returning anomaly_id::text as id`,
      [store.id, candidates.map((item) => item.id)],
    );
    const freshIds = new Set(fresh.map((row) => row.id));
    const listed = candidates.filter((item) => freshIds.has(item.id));
    if (listed.length === 0) return { emailId: null, anomalyIds: [], reason: 'nothing_new' as const };
    const owner = await tx.findOneOrFail(User, { id: store.owner.id });
    const language = settings.language;
    const texts = anomalyTexts(language);
    const storeName = store.name;
    const lines = listed.map((item) => {
      const said = describeAnomaly(item, language, store.currency);
      return `- ${interpolate(texts.email.line, { ...said, day: item.day })}`;
    });
    const email = await sendEmail(tx, {
      to: owner.email,
      template: 'anomaly_alert',
      userId: owner.id,
      variables: {
        subject: interpolate(texts.email.subject, { storeName }),
        storeName,
        intro: interpolate(texts.email.intro, { storeName }),
        anomalies: lines.join('\n'),
        outro: texts.email.outro,
        dashboardUrl: `${(options.publicUrl ?? '').replace(/\/$/, '')}/dashboard`,
        footer: texts.email.footer,
      },
      ...(options.publicUrl ? { unsubscribe: { target: { kind: 'anomaly_alerts' as const, storeId: store.id }, baseUrl: options.publicUrl } } : {}),
    }, options.log);
    return { emailId: email.id, anomalyIds: listed.map((item) => item.id), reason: 'sent' as const };
  });
}
