import { describe, expect, it } from 'vitest';
import { signedInClient } from '../../../../test/harness.ts';
import { BillingInvoice } from '../subscriptions/billing.entities.ts';
import { AffiliateCommission, AffiliateReferral } from './affiliate.entities.ts';
import { DAY, useAffiliateWorld } from './affiliate-test-kit.ts';
import { commissionTotals } from './commissions.service.ts';

const world = useAffiliateWorld();
const { database, runEventsJob, newAffiliate, referredSubscriber, commissionsOf } = world;

describe('affiliate commissions from Stripe invoices', () => {
  it('a paid invoice of a referred account earns 30 %, pending for 30 days then payable; each invoice earns once', async () => {
    const { code, affiliateId } = await newAffiliate();
    const { paidInvoiceId } = await referredSubscriber(code);
    expect(paidInvoiceId).toBeDefined();
    const [commission, ...others] = await commissionsOf(affiliateId);
    expect(others).toEqual([]);
    expect(commission).toMatchObject({ status: 'earned', currency: 'GBP', ratePercent: 30, amountMinor: 2370 });

    const invoice = await database.orm.em.fork().findOneOrFail(BillingInvoice, { stripeInvoiceId: paidInvoiceId! });
    const paidAt = invoice.paidAt!.getTime();
    expect(await commissionTotals(database.orm.em.fork(), affiliateId, new Date(paidAt + 29 * DAY * 1000))).toEqual({ earnedMinor: 2370, pendingMinor: 2370, payableMinor: 0 });
    expect(await commissionTotals(database.orm.em.fork(), affiliateId, new Date(paidAt + 31 * DAY * 1000))).toEqual({ earnedMinor: 2370, pendingMinor: 0, payableMinor: 2370 });

    const invoicePaid = world.stripe.sentEvents.filter((event) => event.type === 'invoice.paid' && (event.data as { object: { id: string } }).object.id === paidInvoiceId).at(-1)!;
    await world.stripe.resend(invoicePaid);
    await runEventsJob();
    expect((await commissionsOf(affiliateId)).map((row) => row.amountMinor)).toEqual([2370]);
  });

  it('a refund reduces the commission proportionally and a chargeback reverses it', async () => {
    const { code, affiliateId } = await newAffiliate();
    const { paidInvoiceId } = await referredSubscriber(code);
    await world.stripe.refund(paidInvoiceId!, 2000);
    await runEventsJob();
    expect(await commissionsOf(affiliateId)).toMatchObject([{ status: 'earned', amountMinor: Math.round(5900 * 0.3) }]);
    await world.stripe.dispute(paidInvoiceId!);
    await runEventsJob();
    expect(await commissionsOf(affiliateId)).toMatchObject([{ status: 'reversed', amountMinor: 0 }]);
    expect((await commissionTotals(database.orm.em.fork(), affiliateId)).earnedMinor).toBe(0);
  });

  it('invoices paid after the 12 months from sign-up earn nothing; a per-affiliate rate applies', async () => {
    const late = await newAffiliate();
    await referredSubscriber(late.code, async (userId) => {
      await database.orm.em.fork().nativeUpdate(AffiliateReferral, { referredUser: userId }, { signedUpAt: new Date(Date.now() - 366 * DAY * 1000) });
    });
    expect(await commissionsOf(late.affiliateId)).toEqual([]);

    const custom = await newAffiliate();
    await database.orm.em.fork().getConnection().execute('update affiliates set commission_rate_percent = 50 where id = ?', [custom.affiliateId]);
    await referredSubscriber(custom.code);
    expect(await commissionsOf(custom.affiliateId)).toMatchObject([{ ratePercent: 50, amountMinor: 3950 }]);
  });

  it('an account that was not referred earns nobody anything', async () => {
    const { client, user } = await signedInClient(world.app, 'plain');
    await world.subscribe(client);
    await world.stripe.advanceClock(15 * DAY);
    await runEventsJob();
    // Earlier tests' subscriptions renew too when the clock moves; only referred accounts' invoices may count.
    const em = database.orm.em.fork();
    const paidInvoices = await em.find(BillingInvoice, { user: user.id, amountPaid: { $gt: 0 } });
    expect(paidInvoices).toHaveLength(1);
    expect(await em.count(AffiliateCommission, { invoice: paidInvoices[0]!.id })).toBe(0);
  });
});
