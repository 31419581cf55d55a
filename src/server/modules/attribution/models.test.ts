import { describe, expect, it } from 'vitest';
import { ATTRIBUTION_MODELS, type AttributionModel } from '../../../shared/attribution.ts';
import { DAY_MS, orderCredits, roundToSum, splitLargestRemainder, touchpointWeights, type AttributionOrder, type Touchpoint } from './models.ts';

// Hand-computed fixtures for every model and several windows. The order: 100.00 (10,000 minor
// units) placed at T; its visitor came from Meta (campaign m1) 10 days before, Google (g1) 3 days
// before and directly 1 hour before.

const T = Date.UTC(2026, 10, 20, 12);
const HOUR = 3_600_000;
const META: Touchpoint = { at: T - 10 * DAY_MS, channel: 'metaads', campaign: 'm1' };
const GOOGLE: Touchpoint = { at: T - 3 * DAY_MS, channel: 'googleads', campaign: 'g1' };
const DIRECT: Touchpoint = { at: T - HOUR, channel: 'direct', campaign: '' };

function order(touchpoints: Touchpoint[], overrides: Partial<AttributionOrder> = {}): AttributionOrder {
  return { placedAt: T, placedDay: '2026-11-20', currency: 'GBP', revenueMinor: 10_000, channel: 'organic_search', campaign: '', refunds: [], touchpoints, ...overrides };
}

/** channel -> [credited millionths of an order, credited revenue] on the placed day. */
function credits(model: AttributionModel, subject: AttributionOrder, window: number) {
  return Object.fromEntries(orderCredits(model, subject, window).filter((row) => row.day === subject.placedDay).map((row) => [row.channel, [row.ordersMillionths, row.revenueMinor]]));
}

describe('attribution models (hand-computed)', () => {
  const journey = order([META, GOOGLE, DIRECT]);

  it('30-day window: all three touchpoints', () => {
    expect(credits('first_click', journey, 30)).toEqual({ metaads: [1_000_000, 10_000] });
    // Last click skips the direct visit: the last non-direct touchpoint is Google.
    expect(credits('last_click', journey, 30)).toEqual({ googleads: [1_000_000, 10_000] });
    // A third each; the odd cent and millionth go to the first (equal remainders: the earlier share).
    expect(credits('linear', journey, 30)).toEqual({ metaads: [333_334, 3_334], googleads: [333_333, 3_333], direct: [333_333, 3_333] });
    // Weights 2^(-10/7) = 0.371499, 2^(-3/7) = 0.742997, 2^(-1/168) = 0.995883 (sum 2.110378):
    // exact 1760.34, 3520.68, 4718.98 -> floors 1760, 3520, 4718 (9,998); the two cents left go to
    // the largest remainders (.98 direct, .68 Google). Orders: 176034.11, 352068.22, 471897.67.
    expect(credits('time_decay', journey, 30)).toEqual({ metaads: [176_034, 1_760], googleads: [352_068, 3_521], direct: [471_898, 4_719] });
    expect(credits('position_based', journey, 30)).toEqual({ metaads: [400_000, 4_000], googleads: [200_000, 2_000], direct: [400_000, 4_000] });
  });

  it('7-day window: the Meta visit (10 days before) is ignored; two touchpoints share 50/50 under position-based', () => {
    expect(credits('first_click', journey, 7)).toEqual({ googleads: [1_000_000, 10_000] });
    expect(credits('last_click', journey, 7)).toEqual({ googleads: [1_000_000, 10_000] });
    expect(credits('linear', journey, 7)).toEqual({ googleads: [500_000, 5_000], direct: [500_000, 5_000] });
    expect(credits('position_based', journey, 7)).toEqual({ googleads: [500_000, 5_000], direct: [500_000, 5_000] });
    // 2^(-3/7) = 0.742997 and 0.995883 (sum 1.738880): 4272.85 and 5727.15 -> 4273, 5727; orders 427285.4, 572714.6.
    expect(credits('time_decay', journey, 7)).toEqual({ googleads: [427_285, 4_273], direct: [572_715, 5_727] });
  });

  it('1-day window: only the direct visit; last click falls back to direct when nothing else came; one touchpoint takes 100 %', () => {
    for (const model of ATTRIBUTION_MODELS) expect(credits(model, journey, 1)).toEqual({ direct: [1_000_000, 10_000] });
  });

  it('no touchpoint in the window: the order’s own landing source, flagged, never dropped', () => {
    const old = order([META], { channel: 'klaviyo', campaign: 'winback' });
    for (const model of ATTRIBUTION_MODELS) {
      expect(orderCredits(model, old, 7)).toEqual([{ model, day: '2026-11-20', channel: 'klaviyo', campaign: 'winback', currency: 'GBP', ordersMillionths: 1_000_000, revenueMinor: 10_000, ownSource: true }]);
    }
    expect(orderCredits('linear', old, 14).every((row) => !row.ownSource)).toBe(true);
    // A touchpoint after the order is not one of its touchpoints.
    expect(credits('first_click', order([{ at: T + HOUR, channel: 'metaads', campaign: '' }]), 30)).toEqual({ organic_search: [1_000_000, 10_000] });
  });

  it('ties (same timestamp) keep the order given; the same channel and campaign twice adds up', () => {
    const a: Touchpoint = { at: T - DAY_MS, channel: 'bingads', campaign: 'b' };
    const b: Touchpoint = { at: T - DAY_MS, channel: 'tiktokads', campaign: 't' };
    expect(credits('first_click', order([a, b]), 30)).toEqual({ bingads: [1_000_000, 10_000] });
    expect(credits('last_click', order([a, b]), 30)).toEqual({ tiktokads: [1_000_000, 10_000] });
    expect(credits('time_decay', order([a, b]), 30)).toEqual({ bingads: [500_000, 5_000], tiktokads: [500_000, 5_000] });
    // Meta, Google, Meta: position-based 40 + 40 to Meta, 20 to Google.
    expect(credits('position_based', order([META, GOOGLE, { ...META, at: T - 2 * DAY_MS }]), 30)).toEqual({ metaads: [800_000, 8_000], googleads: [200_000, 2_000] });
    // Five touchpoints: the three in the middle share 20 % (6.67 % each).
    const five = [META, GOOGLE, { ...GOOGLE, campaign: 'g2', at: T - 2 * DAY_MS }, { ...DIRECT, at: T - 2 * HOUR, channel: 'referral' }, DIRECT];
    expect(touchpointWeights('position_based', five, T).map((w) => Math.round(w * 1e4) / 1e4)).toEqual([0.4, 0.0667, 0.0667, 0.0667, 0.4]);
  });

  it('a refund lowers the credit on its own day in the same proportions, and every model adds up to the net to the cent', () => {
    const refunded = order([META, GOOGLE, DIRECT], { revenueMinor: 10_001, refunds: [{ day: '2026-11-25', amountMinor: 2_500 }] });
    const linear = orderCredits('linear', refunded, 30);
    expect(linear.filter((row) => row.day === '2026-11-25').map((row) => [row.channel, row.revenueMinor, row.ordersMillionths])).toEqual([
      ['metaads', -834, 0], ['googleads', -833, 0], ['direct', -833, 0],
    ]);
    expect(linear.filter((row) => row.day === '2026-11-20').map((row) => row.revenueMinor)).toEqual([3_334, 3_334, 3_333]);
    for (const model of ATTRIBUTION_MODELS) {
      for (const window of [1, 7, 14, 28, 30, 60, 90]) {
        const rows = orderCredits(model, refunded, window);
        expect(rows.reduce((sum, row) => sum + row.revenueMinor, 0)).toBe(10_001 - 2_500);
        expect(rows.reduce((sum, row) => sum + row.ordersMillionths, 0)).toBe(1_000_000);
      }
    }
  });

  it('largest remainder splits exactly, negative totals too', () => {
    expect(splitLargestRemainder(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(splitLargestRemainder(-100, [1, 1, 1])).toEqual([-34, -33, -33]);
    expect(splitLargestRemainder(1, [0.2, 0.5, 0.3])).toEqual([0, 1, 0]);
    expect(splitLargestRemainder(0, [1, 2])).toEqual([0, 0]);
  });
});

describe('rounding credited amounts to whole cents that add up', () => {
  it('gives the cents left to the largest remainders, so the parts add up to the rounded sum', () => {
    expect(roundToSum([100.4, 200.6, 299.6])).toEqual([100, 201, 300]);
    // Rounded one by one they make 3; their sum, 1.8, rounds to 2.
    expect(roundToSum([0.6, 0.6, 0.6])).toEqual([1, 1, 0]);
    expect(roundToSum([0.6, 0.6, 0.6]).reduce((a, b) => a + b, 0)).toBe(2);
    // Refunds: negative amounts are floored too (-0.6 -> -1, remainder 0.4); the sum 4 is kept.
    expect(roundToSum([-0.6, -0.6, 5.2])).toEqual([0, -1, 5]);
    expect(roundToSum([12, 30])).toEqual([12, 30]);
    expect(roundToSum([])).toEqual([]);
  });
});
