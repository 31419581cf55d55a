import { DEFAULT_PAYOUT_THRESHOLD_MINOR, DEFAULT_REFERRAL_COOKIE_DAYS } from '../../../shared/affiliates.ts';

/** The programme's settings (config.ts reads them from the environment). */
export interface AffiliateSettings {
  /** How long the referral cookie lives and how old a click may be to attribute a sign-up. */
  cookieDays: number;
  /** The payable balance (pence) at which an affiliate may request a payout. */
  payoutThresholdMinor: number;
  /** Which referral link a sign-up is credited to when a visitor followed several: the last (default) or the first still in its window. */
  attribution: ReferralAttribution;
}

export const REFERRAL_ATTRIBUTIONS = ['last', 'first'] as const;
export type ReferralAttribution = (typeof REFERRAL_ATTRIBUTIONS)[number];

export const DEFAULT_AFFILIATE_SETTINGS: AffiliateSettings = { cookieDays: DEFAULT_REFERRAL_COOKIE_DAYS, payoutThresholdMinor: DEFAULT_PAYOUT_THRESHOLD_MINOR, attribution: 'last' };
