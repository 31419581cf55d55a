import { DEFAULT_PAYOUT_THRESHOLD_MINOR, DEFAULT_REFERRAL_COOKIE_DAYS } from '../../../shared/affiliates.ts';

/** The programme's settings (config.ts reads them from the environment). */
export interface AffiliateSettings {
  /** How long the referral cookie lives and how old a click may be to attribute a sign-up. */
  cookieDays: number;
  /** The payable balance (pence) at which an affiliate may request a payout. */
  payoutThresholdMinor: number;
}

export const DEFAULT_AFFILIATE_SETTINGS: AffiliateSettings = { cookieDays: DEFAULT_REFERRAL_COOKIE_DAYS, payoutThresholdMinor: DEFAULT_PAYOUT_THRESHOLD_MINOR };
