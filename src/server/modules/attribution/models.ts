import type { AttributionModel } from '../../../shared/attribution.ts';

// The attribution models, pure (README, "Attribution"). An order's touchpoints are the sessions that
// started from a source (tracking_touchpoints) of its visitor(s) in the lookback window before it was
// placed; each model gives every touchpoint a weight, the weights of one (channel, campaign) are added
// up, and the order's revenue (and its one order) is split in those proportions to the cent:
// - first_click: the first touchpoint gets everything;
// - last_click: the last touchpoint that is not direct; a direct one only when nothing else came;
// - linear: equal shares;
// - time_decay: weight 2^(-(order time - touch time) / 7 days), a half-life of 7 days as in GA4;
// - position_based: 40 % to the first, 40 % to the last, 20 % shared by those between (GA4's
//   position-based); one touchpoint takes 100 %, two take 50 % each.
// An order without a touchpoint in the window is credited to its own landing source (its channel and
// utm_campaign from the orders table), flagged `ownSource`: never dropped.

export const DAY_MS = 86_400_000;
export const HALF_LIFE_MS = 7 * DAY_MS;

export interface Touchpoint {
  /** Epoch milliseconds. */
  at: number;
  channel: string;
  /** '' for none. */
  campaign: string;
}

export interface CreditShare {
  channel: string;
  campaign: string;
  weight: number;
}

/** The touchpoints that count for an order placed at `placedAt`: in [placedAt - window, placedAt], oldest first (stable for ties). */
export function touchpointsInWindow(touchpoints: readonly Touchpoint[], placedAt: number, windowDays: number): Touchpoint[] {
  const from = placedAt - windowDays * DAY_MS;
  return touchpoints
    .map((touchpoint, index) => ({ touchpoint, index }))
    .filter(({ touchpoint }) => touchpoint.at >= from && touchpoint.at <= placedAt)
    .sort((a, b) => a.touchpoint.at - b.touchpoint.at || a.index - b.index)
    .map(({ touchpoint }) => touchpoint);
}

/** Each touchpoint's weight under the model (touchpoints oldest first, at least one). */
export function touchpointWeights(model: AttributionModel, touchpoints: readonly Touchpoint[], placedAt: number): number[] {
  const n = touchpoints.length;
  switch (model) {
    case 'first_click':
      return touchpoints.map((_, index) => (index === 0 ? 1 : 0));
    case 'last_click': {
      let last = -1;
      for (let index = n - 1; index >= 0; index -= 1) {
        if (touchpoints[index]!.channel !== 'direct') {
          last = index;
          break;
        }
      }
      if (last < 0) last = n - 1;
      return touchpoints.map((_, index) => (index === last ? 1 : 0));
    }
    case 'linear':
      return touchpoints.map(() => 1);
    case 'time_decay':
      return touchpoints.map((touchpoint) => 2 ** (-(placedAt - touchpoint.at) / HALF_LIFE_MS));
    case 'position_based':
      if (n === 1) return [1];
      if (n === 2) return [0.5, 0.5];
      return touchpoints.map((_, index) => (index === 0 || index === n - 1 ? 0.4 : 0.2 / (n - 2)));
  }
}

/** The weights added up per (channel, campaign), in order of first appearance; zero weights left out. */
export function creditShares(model: AttributionModel, touchpoints: readonly Touchpoint[], placedAt: number): CreditShare[] {
  const weights = touchpointWeights(model, touchpoints, placedAt);
  const shares = new Map<string, CreditShare>();
  touchpoints.forEach((touchpoint, index) => {
    const weight = weights[index]!;
    if (weight <= 0) return;
    const key = `${touchpoint.channel}\u0000${touchpoint.campaign}`;
    const share = shares.get(key);
    if (share) share.weight += weight;
    else shares.set(key, { channel: touchpoint.channel, campaign: touchpoint.campaign, weight });
  });
  return [...shares.values()];
}

/** Floors `exact` and gives the units left up to `total` to the largest remainders (ties to the earlier one). */
function floorsWithRemainders(exact: readonly number[], total: number): number[] {
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((value, index) => ({ index, remainder: value - Math.floor(value) })).sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    parts[index]! += 1;
    left -= 1;
  }
  return parts;
}

/**
 * Fractional amounts (credits converted from another currency) rounded to whole minor units so that
 * they add up to their rounded sum exactly: each is floored, and the units left go to the largest
 * remainders. A table of rounded channel rows then totals what the report's total says, to the cent.
 */
export function roundToSum(values: readonly number[]): number[] {
  const sum = values.reduce((a, b) => a + b, 0);
  return floorsWithRemainders(values, Math.sign(sum) * Math.round(Math.abs(sum)));
}

/**
 * `total` (an integer: minor units, or millionths of an order) split in proportion to the weights
 * by the largest remainder method: the parts are integers and add up to `total` exactly. Ties in
 * the remainders go to the earlier share. A negative total (a refund) is split as its opposite.
 */
export function splitLargestRemainder(total: number, weights: readonly number[]): number[] {
  if (total < 0) return splitLargestRemainder(-total, weights).map((part) => (part === 0 ? 0 : -part));
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0 || sum <= 0) throw new Error('Nothing to split among');
  return floorsWithRemainders(weights.map((weight) => (total * weight) / sum), total);
}

export const ORDER_MILLIONTHS = 1_000_000;

/** What an order brings to the attribution rollups. */
export interface AttributionOrder {
  placedAt: number;
  placedDay: string;
  currency: string;
  /** Net sales on its placed day (gross - discounts), minor units. */
  revenueMinor: number;
  /** Its own landing source (orders.channel, orders.utm_campaign). */
  channel: string;
  campaign: string;
  refunds: readonly { day: string; amountMinor: number }[];
  /** Its visitors' touchpoints (any time; the window is applied here). */
  touchpoints: readonly Touchpoint[];
}

export interface CreditRow {
  model: AttributionModel;
  day: string;
  channel: string;
  campaign: string;
  currency: string;
  /** Credited orders in millionths (one order = 1,000,000). */
  ordersMillionths: number;
  revenueMinor: number;
  /** Credited to the order's own landing source, the order having no touchpoint in the window. */
  ownSource: boolean;
}

/** Every credit row of one order under one model: its placed day's, then each refund's (minus, same proportions). */
export function orderCredits(model: AttributionModel, order: AttributionOrder, windowDays: number): CreditRow[] {
  const inWindow = touchpointsInWindow(order.touchpoints, order.placedAt, windowDays);
  const ownSource = inWindow.length === 0;
  const shares = ownSource ? [{ channel: order.channel, campaign: order.campaign, weight: 1 }] : creditShares(model, inWindow, order.placedAt);
  const weights = shares.map((share) => share.weight);
  const orders = splitLargestRemainder(ORDER_MILLIONTHS, weights);
  const revenue = splitLargestRemainder(order.revenueMinor, weights);
  const rows: CreditRow[] = shares.map((share, index) => ({
    model, day: order.placedDay, channel: share.channel, campaign: share.campaign, currency: order.currency,
    ordersMillionths: orders[index]!, revenueMinor: revenue[index]!, ownSource,
  }));
  for (const refund of order.refunds) {
    const parts = splitLargestRemainder(-refund.amountMinor, weights);
    shares.forEach((share, index) => {
      rows.push({ model, day: refund.day, channel: share.channel, campaign: share.campaign, currency: order.currency, ordersMillionths: 0, revenueMinor: parts[index]!, ownSource });
    });
  }
  return rows;
}
