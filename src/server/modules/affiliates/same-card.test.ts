import { describe, expect, it } from 'vitest';
import { AffiliateFlag } from './affiliate.entities.ts';
import { DAY, useAffiliateWorld } from './affiliate-test-kit.ts';
import { commissionTotals } from './commissions.service.ts';

const world = useAffiliateWorld();
const { database, runEventsJob, newAffiliate, referredSubscriber, commissionsOf, endHold } = world;

const SHARED_CARD = '4000056655665556';

/** An affiliate who subscribed and paid their own first invoice with SHARED_CARD. */
async function payingAffiliate() {
  const affiliate = await newAffiliate('cardaff');
  const customer = await world.subscribe(affiliate.client);
  world.stripe.useCard(customer, SHARED_CARD);
  await world.stripe.advanceClock(15 * DAY);
  await runEventsJob();
  return affiliate;
}

describe('same-card fraud', () => {
  it('a referred invoice paid with the card the affiliate pays with earns nothing: blocked and flagged; another card earns', async () => {
    const affiliate = await payingAffiliate();
    const sameCard = await referredSubscriber(affiliate.code, undefined, (customer) => world.stripe.useCard(customer, SHARED_CARD));
    expect(sameCard.paidInvoiceId).toBeDefined();
    expect(await commissionsOf(affiliate.affiliateId)).toMatchObject([{ status: 'blocked' }]);
    const flags = await database.orm.em.fork().find(AffiliateFlag, { affiliate: affiliate.affiliateId });
    expect(flags).toMatchObject([{ kind: 'same_card', detail: expect.stringContaining(sameCard.paidInvoiceId!) }]);

    await referredSubscriber(affiliate.code);
    const [blocked, earned] = await commissionsOf(affiliate.affiliateId);
    expect(blocked).toMatchObject({ status: 'blocked' });
    expect(earned).toMatchObject({ status: 'earned', amountMinor: 2370 });
    await endHold(affiliate.affiliateId);
    // Only the other card's commission counts or can be paid out.
    expect(await commissionTotals(database.orm.em.fork(), affiliate.affiliateId)).toEqual({ earnedMinor: 2370, pendingMinor: 0, payableMinor: 2370 });

    // A redelivered invoice.paid does not flag twice.
    const paidEvent = world.stripe.sentEvents.filter((event) => event.type === 'invoice.paid' && (event.data as { object: { id: string } }).object.id === sameCard.paidInvoiceId).at(-1)!;
    await world.stripe.resend(paidEvent);
    await runEventsJob();
    expect(await database.orm.em.fork().count(AffiliateFlag, { affiliate: affiliate.affiliateId, kind: 'same_card' })).toBe(1);
    expect((await commissionsOf(affiliate.affiliateId))[0]).toMatchObject({ status: 'blocked' });
  });

  it('two referred customers sharing a card are not flagged when the affiliate pays with another', async () => {
    const affiliate = await payingAffiliate();
    const otherCard = '5555555555554444';
    await referredSubscriber(affiliate.code, undefined, (customer) => world.stripe.useCard(customer, otherCard));
    await referredSubscriber(affiliate.code, undefined, (customer) => world.stripe.useCard(customer, otherCard));
    expect((await commissionsOf(affiliate.affiliateId)).map((commission) => commission.status)).toEqual(['earned', 'earned']);
    expect(await database.orm.em.fork().count(AffiliateFlag, { affiliate: affiliate.affiliateId })).toBe(0);
  });
});
