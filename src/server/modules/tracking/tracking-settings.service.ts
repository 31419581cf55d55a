import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { DEFAULT_PAYMENT_REFERRERS, type TrackingSettingsInput } from '../../../shared/tracking.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { sha256Hex } from './event-schema.ts';

// A store's tracking keys and privacy settings (table tracking_settings, made on first use). The
// public store key (in the pixel's tag) and the secret key (server API) both carry the store id, so
// that every look-up is by store_id; the secret is stored only as its SHA-256.

export interface TrackingSettings {
  storeId: number;
  storeKey: string;
  secretKeyHash: string | null;
  secretKeyHint: string | null;
  allowedDomains: string[];
  honourGpc: boolean;
  retentionMonths: number;
  paymentReferrers: string[];
}

const COLUMNS = `store_id as "storeId", store_key as "storeKey", secret_key_hash as "secretKeyHash", secret_key_hint as "secretKeyHint",
  allowed_domains as "allowedDomains", honour_gpc as "honourGpc", retention_months as "retentionMonths", payment_referrers as "paymentReferrers"`;

const STORE_KEY_PATTERN = /^sp_(\d{1,10})_[A-Za-z0-9_-]{16,40}$/;
const SECRET_KEY_PATTERN = /^sps_(\d{1,10})_[A-Za-z0-9_-]{32,64}$/;

/** The store a public or secret key names, by its shape alone (null when it has none). */
export function storeIdOfKey(key: string, kind: 'public' | 'secret'): number | null {
  const match = (kind === 'public' ? STORE_KEY_PATTERN : SECRET_KEY_PATTERN).exec(key);
  if (!match) return null;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647 ? id : null;
}

export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function readTrackingSettings(em: EntityManager, storeId: number): Promise<TrackingSettings | null> {
  const [row] = await sqlRunner(em).rows<TrackingSettings>(`select ${COLUMNS} from tracking_settings where store_id = $1`, [storeId]);
  return row ?? null;
}

/** The store's settings, made with a new store key and the defaults on first use. */
export async function trackingSettingsOf(em: EntityManager, storeId: number): Promise<TrackingSettings> {
  const existing = await readTrackingSettings(em, storeId);
  if (existing) return existing;
  await sqlRunner(em).run(
    `insert into tracking_settings (store_id, store_key, payment_referrers) values ($1, $2, $3::text[]) on conflict (store_id) do nothing`,
    [storeId, `sp_${storeId}_${randomBytes(15).toString('base64url')}`, [...DEFAULT_PAYMENT_REFERRERS]],
  );
  return (await readTrackingSettings(em, storeId))!;
}

export async function updateTrackingSettings(em: EntityManager, storeId: number, input: TrackingSettingsInput): Promise<TrackingSettings> {
  await trackingSettingsOf(em, storeId);
  const unique = (list: string[] | undefined) => (list ? [...new Set(list)] : null);
  await sqlRunner(em).run(
    `update tracking_settings set
       allowed_domains = coalesce($2::text[], allowed_domains),
       honour_gpc = coalesce($3::boolean, honour_gpc),
       retention_months = coalesce($4::int, retention_months),
       payment_referrers = coalesce($5::text[], payment_referrers),
       updated_at = now()
     where store_id = $1`,
    [storeId, unique(input.allowedDomains), input.honourGpc ?? null, input.retentionMonths ?? null, unique(input.paymentReferrers)],
  );
  return (await readTrackingSettings(em, storeId))!;
}

/** A new secret key for the server API; the previous one stops working. Returned once: only its hash is kept. */
export async function rotateSecretKey(em: EntityManager, storeId: number): Promise<{ secretKey: string; hint: string }> {
  await trackingSettingsOf(em, storeId);
  const secretKey = `sps_${storeId}_${randomBytes(32).toString('base64url')}`;
  const hint = secretKey.slice(-4);
  await sqlRunner(em).run(`update tracking_settings set secret_key_hash = $2, secret_key_hint = $3, updated_at = now() where store_id = $1`, [storeId, sha256Hex(secretKey), hint]);
  return { secretKey, hint };
}

/** A host name is allowed when it is a listed domain or under one; an empty list allows every site. */
export function isAllowedDomain(host: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((domain) => name === domain || name.endsWith(`.${domain}`));
}
