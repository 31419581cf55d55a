import { createHash, randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { REFERRAL_COOKIE_NAME, type AffiliateFlagKind } from '../../../shared/affiliates.ts';
import type { RequestCookies } from '../../trpc/context.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { Affiliate, AffiliateClick, AffiliateFlag, AffiliateReferral, type AffiliateClickEntity, type AffiliateEntity } from './affiliate.entities.ts';
import type { ReferralAttribution } from './affiliate-settings.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The same mailbox however it is spelt: case and "+tag" do not make a different person. */
export function mailboxHash(email: string): string {
  const [local = '', domain = ''] = email.trim().toLowerCase().split('@');
  return sha256(`${local.split('+')[0]}@${domain}`);
}

export function affiliateOf(em: EntityManager, user: UserEntity): Promise<AffiliateEntity | null> {
  return em.findOne(Affiliate, { user: user.id });
}

/** One click: joining twice returns the same membership. */
export async function joinAffiliateProgramme(em: EntityManager, user: UserEntity): Promise<AffiliateEntity> {
  const existing = await affiliateOf(em, user);
  if (existing) return existing;
  const affiliate = em.create(Affiliate, { user, code: randomBytes(6).toString('hex') });
  try {
    await em.flush();
  } catch (error) {
    // A double click racing itself: the unique user index keeps one membership.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    em.clear();
    return em.findOneOrFail(Affiliate, { user: user.id });
  }
  return affiliate;
}

async function flag(em: EntityManager, affiliate: AffiliateEntity, kind: AffiliateFlagKind, detail: string): Promise<void> {
  em.create(AffiliateFlag, { affiliate, kind, detail });
  await em.flush();
}

/**
 * A visit through /?ref=<code>: counts the click and points the referral cookie at it; the last link
 * followed wins, or with AFFILIATE_ATTRIBUTION=first a cookie still in its window is kept. An affiliate
 * following their own link is flagged, not counted.
 */
export async function recordReferralClick(
  em: EntityManager,
  code: string,
  visitor: { user: UserEntity | null; clientIp: string | null; userAgent: string | null; cookies: RequestCookies | null; cookieDays: number; attribution?: ReferralAttribution; now?: Date },
): Promise<{ recorded: boolean }> {
  const affiliate = await em.findOne(Affiliate, { code: code.toLowerCase() }, { populate: ['user'] });
  if (!affiliate) return { recorded: false };
  if (visitor.user && visitor.user.id === affiliate.user.id) {
    await flag(em, affiliate, 'self_referral', 'Followed their own referral link while signed in');
    return { recorded: false };
  }
  const now = visitor.now ?? new Date();
  const day = now.toISOString().slice(0, 10);
  const click = em.create(AffiliateClick, {
    affiliate,
    day,
    visitorHash: sha256(`${day}|${visitor.clientIp ?? ''}|${visitor.userAgent ?? ''}`),
    clickedAt: now,
  });
  await em.flush();
  const kept = visitor.attribution === 'first' && (await clickInWindow(em, visitor.cookies?.get(REFERRAL_COOKIE_NAME), visitor.cookieDays, now));
  if (!kept) visitor.cookies?.set(REFERRAL_COOKIE_NAME, `${affiliate.code}.${click.id}`, visitor.cookieDays * 24 * 60 * 60);
  return { recorded: true };
}

/** The click a referral cookie names ("<code>.<click id>"), if it is genuine and not older than the window. */
async function clickInWindow(em: EntityManager, cookieValue: string | undefined, windowDays: number, now: Date): Promise<AffiliateClickEntity | null> {
  const match = /^([a-z0-9]{6,32})\.(\d{1,10})$/.exec(cookieValue ?? '');
  if (!match) return null;
  const click = await em.findOne(AffiliateClick, { id: Number(match[2]), affiliate: { code: match[1] } }, { populate: ['affiliate.user'] });
  return click && now.getTime() - click.clickedAt.getTime() <= windowDays * DAY_MS ? click : null;
}

/**
 * At sign-up: the referral cookie names a click; a click within the window attributes the new account
 * to its affiliate, unless it is the affiliate's own mailbox (blocked and flagged).
 */
export async function attributeSignUp(em: EntityManager, newUser: UserEntity, cookieValue: string | undefined, windowDays: number, now = new Date()): Promise<void> {
  const click = await clickInWindow(em, cookieValue, windowDays, now);
  if (!click) return;
  const affiliate = click.affiliate;
  if (affiliate.user.id === newUser.id || mailboxHash(affiliate.user.email) === mailboxHash(newUser.email)) {
    await flag(em, affiliate, 'self_referral', `Sign-up of account #${newUser.id} with the affiliate's own e-mail address`);
    return;
  }
  em.create(AffiliateReferral, { affiliate, referredUser: newUser, click, signedUpAt: now });
  await em.flush();
}
