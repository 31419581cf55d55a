import { addDays, daysBetween, dayInZone } from '../../../shared/date-ranges.ts';
import { seededRandom } from '../../random.ts';
import { syntheticRate, SEEDED_CURRENCIES } from '../commerce/fx.ts';
import type { IngestAdMetric, IngestEmailMetric, IngestOrder, IngestOrderLine, IngestProduct, IngestRefund } from '../commerce/ingest.ts';
import type { IngestProductAdMetric, IngestProductAdSlice } from '../commerce/product-ad-metrics.ts';
import { demoCustomerEmail, demoCustomerName } from './demo-names.ts';

// A realistic, deterministic demo store: the same seed, options and "now" give the same rows.
// Everything random comes from seeded PRNGs; the ad model (daily spend per campaign and the orders
// it brings) is a pure function of (seed, campaign, day), so orders and ad metrics agree without
// being generated together. Orders are produced day by day in batches, never all in memory.
//
// The model, in short:
// - expected orders per day = trend x yearly season (December high, June low) x weekday pattern
//   (Sunday peak, Saturday dip) x Black Friday / Cyber Monday peaks x a little noise, scaled so the
//   whole range holds `orders` orders; today only up to the current hour of the store's time zone;
// - each campaign's daily spend follows the same season with its own wobble; the orders it brings
//   are a * spend^0.7 (diminishing returns); the rest of the day's orders are e-mail (Klaviyo,
//   higher on newsletter days), organic search and social, referral and direct;
// - customers: ~7 % guest checkouts; returning customers follow a Pareto/NBD-like process
//   (REPEAT_PROCESS): each new customer gets a purchase rate ~ Gamma(0.3, mean 1.5 a year) (most
//   buy rarely, a few often) and an unobserved exponential lifetime whose rate ~ Gamma(1.2, mean
//   0.9 a year); while alive they buy again as a Poisson process of their rate times the store's
//   season (the weekday, yearly and Black Friday shape above), never within 7 days of their last
//   order. About two thirds never come back within a year; the next purchase is drawn when an order
//   is placed, and returning customers take places in the day's planned count (at most 60 %, the
//   rest the next day), so daily counts and totals stay as planned; ~4 % of orders are refunded
//   days later, a third partly;
// - ad platforms report more conversions than the store sees (as real ones do), e-mail too.

export const DEMO_PLATFORM = 'shopify';
export const DEMO_PRODUCT_COUNT = 200;
export const DEMO_AD_PLATFORMS = ['googleads', 'metaads', 'bingads'] as const;
export const DEMO_EMAIL_PLATFORM = 'klaviyo';

export interface DemoOptions {
  /** PRNG seed; the same seed, options and `now` give identical data. */
  seed?: number;
  /** Months of order history ending now. */
  months?: number;
  /** About how many orders over the whole range (up to 1,000,000). */
  orders?: number;
  campaignsPerPlatform?: number;
  /** Months of daily campaign metrics ending today (defaults to `months`). */
  adHistoryMonths?: number;
  /** The end of the data: orders up to this instant, in the store's time zone. */
  now?: Date;
  /** Orders per generated batch. */
  batchSize?: number;
}

/** 10,000 orders: a year of a small store, loaded in seconds (15,000 took over 10 s on a busy 2-core machine). */
export const DEMO_DEFAULTS = { seed: 42, months: 12, orders: 10_000, campaignsPerPlatform: 8, batchSize: 5_000 } as const;
export const DEMO_MAX_ORDERS = 1_000_000;

export interface DemoStore {
  currency: string;
  timezone: string;
}

// ---------------------------------------------------------------------------------------------
// Randomness

/** A random number in [0, 1) that depends only on its integer arguments (for the pure ad model). */
function hashRandom(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x01000193);
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return seededRandom(h)();
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Index into cumulative weights. */
function pickWeighted(cumulative: number[], random: () => number): number {
  const target = random() * cumulative[cumulative.length - 1]!;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cumulative[middle]! > target) high = middle;
    else low = middle + 1;
  }
  return low;
}

function cumulativeOf(weights: number[]): number[] {
  let sum = 0;
  return weights.map((weight) => (sum += weight));
}

function exponential(random: () => number, mean: number): number {
  return -Math.log(1 - random()) * mean;
}

/** A standard normal draw (Box-Muller, one of the pair). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A Gamma(shape, 1) draw: Marsaglia and Tsang (2000); shape < 1 through Gamma(shape + 1) x U^(1/shape). */
function gammaUnit(random: () => number, shape: number): number {
  if (shape < 1) return gammaUnit(random, shape + 1) * (1 - random()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

// ---------------------------------------------------------------------------------------------
// Calendar

function weekdayOf(day: string): number {
  return new Date(`${day}T00:00:00Z`).getUTCDay();
}

/** Black Friday: the day after the fourth Thursday of November. */
export function blackFriday(year: number): string {
  const firstWeekday = new Date(Date.UTC(year, 10, 1)).getUTCDay();
  const firstThursday = 1 + ((4 - firstWeekday + 7) % 7);
  return `${year}-11-${String(firstThursday + 21 + 1).padStart(2, '0')}`;
}

/** Sunday is the strongest day of the week, Saturday the weakest. Index = getUTCDay(). */
const WEEKDAY_FACTOR = [1.14, 1.06, 1.02, 1.0, 0.97, 0.91, 0.8];

function holidayFactor(day: string): number {
  const year = Number(day.slice(0, 4));
  const bf = blackFriday(year);
  const offset = daysBetween(bf, day);
  if (offset === 0) return 3.4;
  if (offset === 1) return 1.9;
  if (offset === 2) return 1.8;
  if (offset === 3) return 2.3; // Cyber Monday
  if (offset >= -7 && offset < 0) return 1.25;
  const monthDay = day.slice(5);
  if (monthDay === '12-25') return 0.4;
  if (monthDay === '12-26') return 1.3;
  return 1;
}

function yearlyFactor(day: string): number {
  const dayOfYear = daysBetween(`${day.slice(0, 4)}-01-01`, day);
  return 1 + 0.18 * Math.cos((2 * Math.PI * (dayOfYear - 350)) / 365);
}

/** Share of a day's orders placed in each local hour: night low, evening peak. */
const HOUR_WEIGHTS = [1, 0.6, 0.4, 0.3, 0.3, 0.4, 0.8, 1.5, 2.2, 2.8, 3.2, 3.4, 3.6, 3.4, 3.2, 3.2, 3.4, 3.8, 4.4, 5, 5.2, 4.6, 3.4, 2];
const HOUR_CUMULATIVE = cumulativeOf(HOUR_WEIGHTS);
const HOUR_TOTAL = HOUR_CUMULATIVE.at(-1)!;

/** Minutes east of UTC of a time zone at an instant. */
function zoneOffsetMinutes(formatter: Intl.DateTimeFormat, instantMs: number): number {
  const parts = Object.fromEntries(formatter.formatToParts(new Date(instantMs)).map((part) => [part.type, part.value]));
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour) % 24, Number(parts.minute), Number(parts.second));
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / 60_000);
}

// ---------------------------------------------------------------------------------------------
// Catalogue

const PRODUCT_KINDS = [
  ['Merino Crew Jumper', 6900], ['Organic Cotton Tee', 2400], ['Linen Shirt', 5500], ['Wool Beanie', 1900], ['Canvas Tote', 2200],
  ['Leather Belt', 3500], ['Rain Jacket', 12900], ['Chino Trousers', 6500], ['Hiking Socks', 1400], ['Down Gilet', 9900],
  ['Denim Jacket', 8900], ['Running Shorts', 2900], ['Silk Scarf', 4500], ['Weekender Bag', 14900], ['Sun Hat', 2800],
  ['Cashmere Gloves', 5900], ['Trail Shoes', 11900], ['Lounge Joggers', 4900], ['Polo Shirt', 3900], ['Card Holder', 2500],
] as const;
const PRODUCT_COLOURS = ['Navy', 'Charcoal', 'Oat', 'Forest', 'Rust', 'Sky', 'Black', 'Stone', 'Burgundy', 'Sage'];

export interface DemoProduct extends IngestProduct {
  /** Popularity weight (a few bestsellers, a long tail). */
  weight: number;
}

export function demoProducts(seed: number, currency: string): DemoProduct[] {
  const random = seededRandom(seed ^ 0x51f15e);
  const products: DemoProduct[] = [];
  for (let index = 0; index < DEMO_PRODUCT_COUNT; index += 1) {
    const [kind, basePrice] = PRODUCT_KINDS[index % PRODUCT_KINDS.length]!;
    const colour = PRODUCT_COLOURS[Math.floor(index / PRODUCT_KINDS.length) % PRODUCT_COLOURS.length]!;
    // Prices end in 99 or 00 like real ones; the colour shifts the base price a little.
    const price = Math.max(500, Math.round((basePrice * (0.85 + random() * 0.3)) / 100) * 100 - (random() < 0.6 ? 1 : 0));
    // Cost 25-60 % of price; one product in 40 has no cost entered yet.
    const unitCost = index % 40 === 7 ? null : Math.round(price * (0.25 + random() * 0.35));
    const sku = `SP-${String(index + 1).padStart(4, '0')}`;
    products.push({
      platform: DEMO_PLATFORM,
      externalId: `demo-product-${index + 1}`,
      title: `${kind} — ${colour}`,
      sku,
      priceMinor: price,
      currency,
      unitCostMinor: unitCost,
      imageUrl: null,
      active: index % 50 !== 49,
      weight: 1 / (1 + ((index * 37) % DEMO_PRODUCT_COUNT)) ** 0.8,
    });
  }
  return products;
}

// ---------------------------------------------------------------------------------------------
// The ad model

interface Campaign {
  platform: (typeof DEMO_AD_PLATFORMS)[number];
  /** Position of the platform in DEMO_AD_PLATFORMS: part of the campaign's random identity. */
  platformIndex: number;
  index: number;
  accountId: string;
  campaignId: string;
  name: string;
  utmSource: string;
  /** Share of its platform's budget. */
  budgetShare: number;
  /** Orders per spend^0.7 relative to the average campaign. */
  efficiency: number;
}

const CAMPAIGN_NAMES: Record<(typeof DEMO_AD_PLATFORMS)[number], string[]> = {
  googleads: ['Brand — Exact', 'Shopping — All products', 'Search — Generic', 'PMax — Bestsellers', 'Search — Competitors', 'Display — Remarketing', 'Shopping — Sale', 'YouTube — Prospecting'],
  metaads: ['Advantage+ Shopping', 'Prospecting — Broad', 'Retargeting — 7 days', 'Lookalike 1 %', 'Catalogue — Dynamic ads', 'UGC video', 'Stories — New in', 'Engagement — Reels'],
  bingads: ['Brand', 'Shopping — All products', 'Search — Generic', 'Search — Outerwear', 'Audience — Remarketing', 'Shopping — Sale', 'Search — Gifts', 'Search — Knitwear'],
};

const PLATFORM_PROFILE = {
  googleads: { accountId: '123-456-7890', budget: 0.5, utmSource: 'google', cpmMinor: 900, ctr: 0.035, overReport: 1.25 },
  metaads: { accountId: 'act_1029384756', budget: 0.38, utmSource: 'facebook', cpmMinor: 650, ctr: 0.012, overReport: 1.55 },
  bingads: { accountId: '987654321', budget: 0.12, utmSource: 'bing', cpmMinor: 550, ctr: 0.028, overReport: 1.3 },
} as const;

function demoCampaigns(seed: number, perPlatform: number): Campaign[] {
  const campaigns: Campaign[] = [];
  for (const [platformIndex, platform] of DEMO_AD_PLATFORMS.entries()) {
    const names = CAMPAIGN_NAMES[platform];
    const raw = Array.from({ length: perPlatform }, (_, index) => 1 / (index + 1.5) ** 0.9);
    const sum = raw.reduce((a, b) => a + b, 0);
    for (let index = 0; index < perPlatform; index += 1) {
      const name = index < names.length ? names[index]! : `${names[index % names.length]} ${Math.floor(index / names.length) + 1}`;
      campaigns.push({
        platform,
        platformIndex,
        index,
        accountId: PLATFORM_PROFILE[platform].accountId,
        campaignId: `${platform.slice(0, 2)}-${1000 + index}`,
        name,
        utmSource: PLATFORM_PROFILE[platform].utmSource,
        budgetShare: PLATFORM_PROFILE[platform].budget * (raw[index]! / sum),
        efficiency: 0.55 + hashRandom(seed, 7, platformIndex, index) * 0.9,
      });
    }
  }
  return campaigns;
}

/** Blended ROAS the ad budget aims at: ad spend ~ 1/4.5 of the day's expected sales. */
const AD_SPEND_SHARE_OF_SALES = 1 / 4.5;
/** Share of all orders that ads bring on an average day. */
const AD_ORDER_SHARE = 0.47;
const DIMINISHING_RETURNS = 0.7;

interface DayPlan {
  day: string;
  index: number;
  expectedOrders: number;
  /** Per campaign, minor units. */
  spend: number[];
  /** Per campaign: the orders its spend brings (a * spend^0.7). */
  adOrders: number[];
  /** E-mail newsletter day (Tuesday and Thursday). */
  newsletter: boolean;
}

// ---------------------------------------------------------------------------------------------
// The plan: days, expected orders and the ad model, shared by every generator below

export interface DemoPlan {
  /** What the plan was made from (with `now`, they make it again: see order-batches-ahead.ts). */
  options: DemoOptions;
  seed: number;
  store: DemoStore;
  now: Date;
  today: string;
  /** First day with orders. */
  firstOrderDay: string;
  /** First day with ad metrics. */
  firstAdDay: string;
  days: DayPlan[];
  products: DemoProduct[];
  campaigns: Campaign[];
  averageOrderMinor: number;
  batchSize: number;
  foreignCurrency: string;
}

function monthsToDays(months: number): number {
  return Math.round((months * 365.25) / 12);
}

export function demoPlan(store: DemoStore, options: DemoOptions = {}): DemoPlan {
  const seed = options.seed ?? DEMO_DEFAULTS.seed;
  const months = options.months ?? DEMO_DEFAULTS.months;
  const totalOrders = Math.min(options.orders ?? DEMO_DEFAULTS.orders, DEMO_MAX_ORDERS);
  const adMonths = options.adHistoryMonths ?? months;
  const now = options.now ?? new Date();
  const today = dayInZone(now, store.timezone);
  const firstOrderDay = addDays(today, -monthsToDays(months) + 1);
  const firstAdDay = addDays(today, -monthsToDays(Math.max(adMonths, months)) + 1);

  // The current hour's share of today, so "today so far" has data and nothing lies in the future.
  const localHour = Number(new Intl.DateTimeFormat('en-GB', { timeZone: store.timezone, hour: '2-digit', hourCycle: 'h23' }).format(now));
  const minuteShare = now.getUTCMinutes() / 60;
  const todayShare = (HOUR_CUMULATIVE[localHour]! - HOUR_WEIGHTS[localHour]! * (1 - minuteShare)) / HOUR_TOTAL;

  const products = demoProducts(seed, store.currency);
  const popularity = products.reduce((sum, product) => sum + product.weight, 0);
  const averageLine = products.reduce((sum, product) => sum + product.priceMinor * product.weight, 0) / popularity;
  const averageOrderMinor = averageLine * 1.2 * 1.55 * 0.95; // items per line x lines per order x discounts

  const campaigns = demoCampaigns(seed, options.campaignsPerPlatform ?? DEMO_DEFAULTS.campaignsPerPlatform);

  const weights: number[] = [];
  const days: string[] = [];
  for (let day = firstAdDay; day <= today; day = addDays(day, 1)) {
    const t = daysBetween(firstOrderDay, day) / 365;
    const noise = 0.94 + hashRandom(seed, 1, daysBetween('2000-01-01', day)) * 0.12;
    let weight = (1 + 0.3 * t) * yearlyFactor(day) * WEEKDAY_FACTOR[weekdayOf(day)]! * holidayFactor(day) * noise;
    if (day === today) weight *= todayShare;
    weights.push(weight);
    days.push(day);
  }
  const orderDayWeights = weights.filter((_, index) => days[index]! >= firstOrderDay);
  const scale = totalOrders / orderDayWeights.reduce((a, b) => a + b, 0);

  // a in "orders = a * spend^0.7", so that ads bring AD_ORDER_SHARE of the orders of an average day.
  const averageDayOrders = totalOrders / orderDayWeights.length;
  const averageDaySpend = averageDayOrders * averageOrderMinor * AD_SPEND_SHARE_OF_SALES;
  const averageResponse = campaigns.reduce((sum, campaign) => sum + campaign.efficiency * (averageDaySpend * campaign.budgetShare) ** DIMINISHING_RETURNS, 0);
  const a = (AD_ORDER_SHARE * averageDayOrders) / averageResponse;

  const dayPlans = days.map((day, index): DayPlan => {
    const expectedOrders = weights[index]! * scale;
    // Budgets follow the season; today's is spent only so far.
    const budget = expectedOrders * averageOrderMinor * AD_SPEND_SHARE_OF_SALES;
    const dayNumber = daysBetween('2000-01-01', day);
    const spend = campaigns.map((campaign) => {
      // A budget level changed about monthly, and day-to-day pacing.
      const level = 0.6 + hashRandom(seed, 2, campaign.platformIndex, campaign.index, Math.floor(dayNumber / 30)) * 0.8;
      const pacing = 0.8 + hashRandom(seed, 3, campaign.platformIndex, campaign.index, dayNumber) * 0.4;
      return Math.round(budget * campaign.budgetShare * level * pacing);
    });
    const adOrders = campaigns.map((campaign, i) => a * campaign.efficiency * spend[i]! ** DIMINISHING_RETURNS);
    const weekday = weekdayOf(day);
    return { day, index, expectedOrders, spend, adOrders, newsletter: weekday === 2 || weekday === 4 };
  });

  const foreignCurrency = store.currency === 'EUR' ? 'GBP' : 'EUR';
  return {
    options,
    seed,
    store,
    now,
    today,
    firstOrderDay,
    firstAdDay,
    days: dayPlans,
    products,
    campaigns,
    averageOrderMinor,
    batchSize: options.batchSize ?? DEMO_DEFAULTS.batchSize,
    foreignCurrency,
  };
}

/** Units of `to` per unit of `from` on a day, from the synthetic series (EUR = 1). */
function approximateRate(from: string, to: string, day: string): number {
  const perEur = (currency: string) => ((SEEDED_CURRENCIES as readonly string[]).includes(currency) ? syntheticRate(currency as 'USD', day) : 1);
  return perEur(to) / perEur(from);
}

// ---------------------------------------------------------------------------------------------
// Orders, customers and refunds

export interface DemoBatch {
  orders: IngestOrder[];
  refunds: IngestRefund[];
}

/**
 * The returning-customer process (README, "Demo data"): Pareto/NBD-like, not BG/NBD, so that the
 * loyalty benchmark does not grade a model on data drawn from itself. Per new customer: a purchase
 * rate lambda ~ Gamma(rateShape, mean ratePerYear) and a lifetime ~ Exponential(mu) with
 * mu ~ Gamma(dropoutShape, mean dropoutPerYear); while alive, purchases follow a Poisson process of
 * rate lambda x the store's season (weekday, yearly, Black Friday), never within minGapDays of the
 * previous one. About two thirds of customers do not come back within a year.
 */
export const REPEAT_PROCESS = { rateShape: 0.3, ratePerYear: 1.5, dropoutShape: 1.2, dropoutPerYear: 0.9, minGapDays: 7 } as const;

const EMAIL_SHARE = { base: 0.13, newsletter: 0.3 };
const EMAIL_COST_PER_SEND = 0.5;
const UNPAID_WEIGHTS = [
  ['organic_search', 0.36],
  ['direct', 0.3],
  ['organic_social', 0.12],
  ['referral', 0.08],
] as const;
const REFERRERS = {
  organic_search: ['https://www.google.com/', 'https://www.google.co.uk/', 'https://www.bing.com/', 'https://duckduckgo.com/'],
  organic_social: ['https://www.instagram.com/', 'https://www.facebook.com/', 'https://www.pinterest.com/', 'https://www.tiktok.com/'],
  referral: ['https://www.theguardian.com/fashion', 'https://blog.slowwardrobe.example/best-knitwear', 'https://www.reddit.com/r/BuyItForLife/'],
} as const;
const LANDING_PATHS = ['/', '/collections/new', '/collections/sale', '/products/merino-crew-jumper', '/products/rain-jacket', '/collections/knitwear'];
const REFUND_REASONS = ['Wrong size', 'Changed mind', 'Damaged in transit', 'Not as described', 'Arrived late'];
const TAX_RATE: Record<string, number> = { GBP: 0.2, EUR: 0.2, USD: 0.07, CAD: 0.13, AUD: 0.1 };

function clickId(random: () => number, length: number): string {
  let id = '';
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  for (let index = 0; index < length; index += 1) id += alphabet[Math.floor(random() * alphabet.length)];
  return id;
}

/**
 * Orders (with lines and customers) and their refunds, in batches of about `plan.batchSize` orders,
 * in the order they were placed. Refunds come with their order's batch, dated days after it.
 */
export function* demoOrderBatches(plan: DemoPlan): Generator<DemoBatch> {
  const random = seededRandom(plan.seed ^ 0x0bde75);
  const { store, products, campaigns } = plan;
  const productCumulative = cumulativeOf(products.map((product) => product.weight));
  const formatter = new Intl.DateTimeFormat('en-US', { timeZone: store.timezone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  const nowMs = plan.now.getTime();
  const taxRate = TAX_RATE[store.currency] ?? 0.2;
  const freeShippingFrom = Math.round(plan.averageOrderMinor * 0.9 / 100) * 100;

  // Returning customers: day index -> customer numbers due to buy again that day. A customer's
  // purchase rate (per day of average season) and the day index their unobserved lifetime ends,
  // indexed by customer number (see REPEAT_PROCESS).
  const dueByDay = new Map<number, number[]>();
  const purchaseRate: number[] = [0];
  const lifetimeEnd: number[] = [0];
  // Cumulative seasonal intensity at the start of each plan day (the store's yearly, weekly and
  // Black Friday shape without its growth trend): returning customers come back when shoppers do.
  const seasonal = new Float64Array(plan.days.length + 1);
  plan.days.forEach((dayPlan, index) => {
    seasonal[index + 1] = seasonal[index]! + yearlyFactor(dayPlan.day) * WEEKDAY_FACTOR[weekdayOf(dayPlan.day)]! * holidayFactor(dayPlan.day);
  });
  /** Draws the customer's next purchase after `dayIndex` and puts them on that day's list, if they are still alive then. */
  const scheduleNext = (customerNumber: number, dayIndex: number) => {
    const from = dayIndex + REPEAT_PROCESS.minGapDays;
    if (from >= plan.days.length) return;
    const target = seasonal[from]! + exponential(random, 1 / purchaseRate[customerNumber]!);
    if (target >= seasonal[plan.days.length]!) return;
    // The first day whose cumulative intensity passes the target.
    let low = from;
    let high = plan.days.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (seasonal[middle + 1]! > target) high = middle;
      else low = middle + 1;
    }
    if (low >= lifetimeEnd[customerNumber]!) return;
    const list = dueByDay.get(low);
    if (list) list.push(customerNumber);
    else dueByDay.set(low, [customerNumber]);
  };
  let customerCount = 0;
  let sequence = 0;
  let refundSequence = 0;
  let batch: DemoBatch = { orders: [], refunds: [] };

  for (const dayPlan of plan.days) {
    if (dayPlan.day < plan.firstOrderDay) continue;
    const dayIndex = dayPlan.index;
    const count = Math.floor(dayPlan.expectedOrders + random());
    if (count === 0) continue;

    // Channel shares of the day: each campaign's a * spend^0.7, then e-mail and unpaid channels.
    const adTotal = Math.min(dayPlan.adOrders.reduce((a, b) => a + b, 0), dayPlan.expectedOrders * 0.8);
    const adScale = adTotal / Math.max(1e-9, dayPlan.adOrders.reduce((a, b) => a + b, 0));
    const rest = Math.max(0, dayPlan.expectedOrders - adTotal);
    const emailShare = dayPlan.newsletter ? EMAIL_SHARE.newsletter : EMAIL_SHARE.base;
    const sourceWeights = [
      ...dayPlan.adOrders.map((orders) => orders * adScale),
      rest * emailShare,
      ...UNPAID_WEIGHTS.map(([, weight]) => rest * (1 - emailShare) * weight / 0.86),
    ];
    const sourceCumulative = cumulativeOf(sourceWeights);

    // Local midnight of the day in UTC (the offset at noon; DST changes happen at night).
    const localMidnight = Date.parse(`${dayPlan.day}T00:00:00Z`);
    const offset = zoneOffsetMinutes(formatter, localMidnight + 12 * 3_600_000);
    const dayStartMs = localMidnight - offset * 60_000;

    const due = dueByDay.get(dayIndex) ?? [];
    dueByDay.delete(dayIndex);
    const returningCount = Math.min(due.length, Math.floor(count * 0.6));
    // Customers who could not be served today buy tomorrow.
    if (due.length > returningCount) {
      const next = dueByDay.get(dayIndex + 1) ?? [];
      dueByDay.set(dayIndex + 1, next.concat(due.slice(returningCount)));
    }

    const times: number[] = [];
    for (let index = 0; index < count; index += 1) {
      let at: number;
      let attempts = 0;
      do {
        const hour = pickWeighted(HOUR_CUMULATIVE, random);
        at = dayStartMs + hour * 3_600_000 + Math.floor(random() * 3_600_000);
        attempts += 1;
      } while (at > nowMs && attempts < 20);
      if (at > nowMs) at = nowMs - Math.floor(random() * 60_000);
      times.push(at);
    }
    times.sort((x, y) => x - y);

    for (let index = 0; index < count; index += 1) {
      sequence += 1;
      const placedMs = times[index]!;
      const placedAt = new Date(placedMs).toISOString();

      // Who: a returning customer who is due, a guest, or a new customer.
      let customerNumber: number | null;
      let returning = false;
      if (index < returningCount) {
        customerNumber = due[index]!;
        returning = true;
        scheduleNext(customerNumber, dayIndex);
      } else if (random() < 0.07) {
        customerNumber = null;
      } else {
        customerCount += 1;
        customerNumber = customerCount;
        // Heterogeneous customers: a purchase rate from a Gamma (most buy rarely, a few often) and
        // an exponential lifetime whose rate is itself Gamma distributed (REPEAT_PROCESS).
        const { rateShape, ratePerYear, dropoutShape, dropoutPerYear } = REPEAT_PROCESS;
        purchaseRate[customerNumber] = (gammaUnit(random, rateShape) * ratePerYear) / rateShape / 365;
        const dropout = (gammaUnit(random, dropoutShape) * dropoutPerYear) / dropoutShape / 365;
        lifetimeEnd[customerNumber] = dayIndex + exponential(random, 1 / dropout);
        scheduleNext(customerNumber, dayIndex);
      }

      // Where from: returning customers come back by e-mail or directly more often.
      let source = pickWeighted(sourceCumulative, random);
      if (returning && random() < 0.3) source = random() < 0.5 ? campaigns.length : campaigns.length + 2;
      const attribution: Partial<IngestOrder> = { landingSite: pick(random, LANDING_PATHS) };
      if (source < campaigns.length) {
        const campaign = campaigns[source]!;
        attribution.utmSource = campaign.utmSource;
        attribution.utmMedium = campaign.platform === 'metaads' ? 'paid_social' : 'cpc';
        attribution.utmCampaign = campaign.name;
        if (campaign.platform === 'googleads') attribution.gclid = clickId(random, 24);
        else if (campaign.platform === 'metaads') attribution.fbclid = clickId(random, 28);
        else attribution.msclkid = clickId(random, 20);
      } else if (source === campaigns.length) {
        attribution.utmSource = DEMO_EMAIL_PLATFORM;
        attribution.utmMedium = 'email';
        attribution.utmCampaign = dayPlan.newsletter ? `Newsletter ${dayPlan.day}` : pick(random, ['Welcome series', 'Abandoned cart', 'Post-purchase']);
      } else {
        const channel = UNPAID_WEIGHTS[source - campaigns.length - 1]![0];
        if (channel !== 'direct') attribution.referrer = pick(random, REFERRERS[channel]);
      }

      // What: 1-4 lines of popular products, sometimes more than one unit.
      const foreign = random() < 0.025;
      const currency = foreign ? plan.foreignCurrency : store.currency;
      const rate = foreign ? approximateRate(store.currency, currency, dayPlan.day) : 1;
      const lineRoll = random();
      const lineCount = lineRoll < 0.6 ? 1 : lineRoll < 0.88 ? 2 : lineRoll < 0.97 ? 3 : 4;
      const lines: IngestOrderLine[] = [];
      let gross = 0;
      for (let line = 0; line < lineCount; line += 1) {
        const product = products[pickWeighted(productCumulative, random)]!;
        const quantityRoll = random();
        const quantity = quantityRoll < 0.85 ? 1 : quantityRoll < 0.97 ? 2 : 3;
        const unitPrice = Math.round(product.priceMinor * rate);
        gross += quantity * unitPrice;
        lines.push({
          externalId: String(line + 1),
          productExternalId: product.externalId,
          title: product.title,
          sku: product.sku,
          quantity,
          unitPriceMinor: unitPrice,
          unitCostMinor: product.unitCostMinor === null || product.unitCostMinor === undefined ? null : Math.round(product.unitCostMinor * rate),
        });
      }
      const holiday = holidayFactor(dayPlan.day) > 1.7;
      const discountRate = holiday ? (random() < 0.7 ? 0.25 : 0) : random() < 0.18 ? pick(random, [0.1, 0.15, 0.2]) : 0;
      const discounts = Math.round(gross * discountRate);
      // The order discount spread over its lines (the last takes the rounding).
      let spread = 0;
      lines.forEach((line, lineIndex) => {
        const value = line.quantity * line.unitPriceMinor;
        line.discountMinor = lineIndex === lines.length - 1 ? discounts - spread : Math.round((discounts * value) / gross);
        spread += line.discountMinor;
      });
      const merchandise = gross - discounts;
      const shipping = merchandise >= freeShippingFrom * rate ? 0 : Math.round((random() < 0.12 ? 995 : 495) * rate);
      const taxes = Math.round((merchandise + shipping) * taxRate);

      const ageDays = (nowMs - placedMs) / 86_400_000;
      const statusRoll = random();
      const isTest = statusRoll < 0.002;
      const status = statusRoll < 0.01 ? 'cancelled' : ageDays < 3 && statusRoll < 0.16 ? 'pending' : 'paid';

      batch.orders.push({
        platform: DEMO_PLATFORM,
        externalId: `demo-${sequence}`,
        orderNumber: `#${1000 + sequence}`,
        placedAt,
        currency,
        grossMinor: gross,
        discountsMinor: discounts,
        shippingMinor: shipping,
        taxesMinor: taxes,
        status,
        isTest,
        customer: customerNumber === null
          ? null
          : { externalId: `demo-customer-${customerNumber}`, email: demoCustomerEmail(customerNumber), name: demoCustomerName(customerNumber) },
        lines,
        ...attribution,
      });

      // About 4 % of paid orders come back, 2-21 days later; a third only in part.
      if (status === 'paid' && !isTest && random() < 0.042) {
        const refundedMs = placedMs + (2 + random() * 19) * 86_400_000;
        if (refundedMs < nowMs && merchandise > 0) {
          refundSequence += 1;
          const partial = random() < 0.33;
          batch.refunds.push({
            platform: DEMO_PLATFORM,
            externalId: `demo-refund-${refundSequence}`,
            orderExternalId: `demo-${sequence}`,
            refundedAt: new Date(refundedMs).toISOString(),
            amountMinor: partial ? Math.max(1, Math.round(merchandise * (0.2 + random() * 0.4))) : merchandise,
            currency,
            reason: pick(random, REFUND_REASONS),
          });
        }
      }

      if (batch.orders.length >= plan.batchSize) {
        yield batch;
        batch = { orders: [], refunds: [] };
      }
    }
  }
  if (batch.orders.length > 0) yield batch;
}

// ---------------------------------------------------------------------------------------------
// Ad and e-mail metrics

/**
 * Daily rows per campaign of the three ad platforms from `firstAdDay` to today, in batches of
 * about `rowsPerBatch`. Conversions are what the platform claims: more than the orders it brought.
 */
export function* demoAdMetricBatches(plan: DemoPlan, rowsPerBatch = 5_000): Generator<IngestAdMetric[]> {
  let rows: IngestAdMetric[] = [];
  for (const dayPlan of plan.days) {
    const dayNumber = daysBetween('2000-01-01', dayPlan.day);
    plan.campaigns.forEach((campaign, index) => {
      const spend = dayPlan.spend[index]!;
      if (spend <= 0) return;
      const profile = PLATFORM_PROFILE[campaign.platform];
      const r = hashRandom(plan.seed, 4, campaign.platformIndex, campaign.index, dayNumber);
      const impressions = Math.round((spend / profile.cpmMinor) * 1000 * (0.85 + r * 0.3));
      const clicks = Math.round(impressions * profile.ctr * (0.8 + hashRandom(plan.seed, 5, campaign.platformIndex, campaign.index, dayNumber) * 0.4));
      const claimed = dayPlan.adOrders[index]! * profile.overReport * (0.85 + hashRandom(plan.seed, 6, campaign.platformIndex, campaign.index, dayNumber) * 0.3);
      // Whole conversions (Meta reports fractions), rounded at random so small campaigns keep their share.
      const conversions = campaign.platform === 'metaads' ? Number(claimed.toFixed(2)) : Math.floor(claimed + hashRandom(plan.seed, 9, campaign.platformIndex, campaign.index, dayNumber));
      rows.push({
        platform: campaign.platform,
        accountId: campaign.accountId,
        campaignId: campaign.campaignId,
        day: dayPlan.day,
        campaignName: campaign.name,
        currency: plan.store.currency,
        impressions,
        clicks,
        spendMinor: spend,
        conversions,
        conversionValueMinor: Math.round(conversions * plan.averageOrderMinor * (0.95 + r * 0.1)),
      });
    });
    if (rows.length >= rowsPerBatch) {
      yield rows;
      rows = [];
    }
  }
  if (rows.length > 0) yield rows;
}

/** Days of per-product shopping rows the demo has (the optimizer's widest window). */
export const DEMO_PRODUCT_AD_DAYS = 90;

/**
 * Google Ads' per-product shopping rows (shopping_performance_view) of the last DEMO_PRODUCT_AD_DAYS
 * days: each day's spend of the Shopping and Performance Max campaigns shared among the active
 * products by popularity, with some noise; products whose share is under a penny have no row (Google
 * reports only products that were shown). Item ids come lower-cased, as the optimizer must match them
 * whatever their case.
 */
export function demoProductAdSlices(plan: DemoPlan): IngestProductAdSlice[] {
  const shopping = plan.campaigns.map((campaign, index) => ({ campaign, index })).filter(({ campaign }) => campaign.platform === 'googleads' && /Shopping|PMax/.test(campaign.name));
  if (shopping.length === 0) return [];
  const products = plan.products.filter((product) => product.active !== false);
  const profile = PLATFORM_PROFILE.googleads;
  const from = addDays(plan.today, -(DEMO_PRODUCT_AD_DAYS - 1));
  const rows: IngestProductAdMetric[] = [];
  for (const dayPlan of plan.days) {
    if (dayPlan.day < from) continue;
    const spend = shopping.reduce((sum, { index }) => sum + Math.max(0, dayPlan.spend[index] ?? 0), 0);
    const orders = shopping.reduce((sum, { index }) => sum + (dayPlan.adOrders[index] ?? 0), 0);
    const dayNumber = daysBetween('2000-01-01', dayPlan.day);
    const weights = products.map((product, position) => product.weight * (0.6 + hashRandom(plan.seed, 11, position, dayNumber) * 0.8));
    const dayWeight = weights.reduce((sum, weight) => sum + weight, 0);
    products.forEach((product, position) => {
      // 92 % of the spend is tied to an offer; the rest Google reports without one.
      const share = (weights[position]! / dayWeight) * 0.92;
      const costMinor = Math.round(spend * share);
      if (costMinor < 1) return;
      const impressions = Math.max(1, Math.round((costMinor / profile.cpmMinor) * 1000));
      const clicks = Math.round(impressions * profile.ctr * (0.7 + hashRandom(plan.seed, 12, position, dayNumber) * 0.6));
      const conversions = Math.floor(orders * share * profile.overReport + hashRandom(plan.seed, 13, position, dayNumber));
      rows.push({
        productItemId: product.externalId.toLowerCase(),
        day: dayPlan.day,
        currency: plan.store.currency,
        clicks,
        impressions,
        costMicros: String(costMinor * 10_000),
        conversions,
        conversionValue: Math.round(conversions * product.priceMinor) / 100,
      });
    });
  }
  return [{ platform: 'googleads', accountId: shopping[0]!.campaign.accountId, from, to: plan.today, rows }];
}

/**
 * Klaviyo: a newsletter every Tuesday and Thursday to the whole (growing) list, and three flows
 * (welcome, abandoned cart, post-purchase) every day; attributed orders over-count the store's.
 */
export function demoEmailMetrics(plan: DemoPlan): IngestEmailMetric[] {
  const rows: IngestEmailMetric[] = [];
  let ordersSoFar = 0;
  for (const dayPlan of plan.days) {
    if (dayPlan.day < plan.firstOrderDay) continue;
    ordersSoFar += dayPlan.expectedOrders;
    const dayNumber = daysBetween('2000-01-01', dayPlan.day);
    const r = (salt: number) => hashRandom(plan.seed, 8, salt, dayNumber);
    const listSize = Math.round(1500 + ordersSoFar * 0.45);
    const adTotal = dayPlan.adOrders.reduce((a, b) => a + b, 0);
    const emailOrders = Math.max(0, dayPlan.expectedOrders - adTotal) * (dayPlan.newsletter ? EMAIL_SHARE.newsletter : EMAIL_SHARE.base);
    const claimed = emailOrders * 1.6;
    const base = { platform: DEMO_EMAIL_PLATFORM, day: dayPlan.day, currency: plan.store.currency };
    if (dayPlan.newsletter && dayPlan.day < plan.today) {
      const orders = Math.round(claimed * 0.6);
      rows.push({
        ...base,
        campaignId: `newsletter-${dayPlan.day}`,
        campaignName: `Newsletter ${dayPlan.day}`,
        sends: listSize,
        opens: Math.round(listSize * (0.34 + r(1) * 0.08)),
        clicks: Math.round(listSize * (0.018 + r(2) * 0.012)),
        attributedOrders: orders,
        attributedRevenueMinor: Math.round(orders * plan.averageOrderMinor),
        // Sending costs (the plan's price spread over its e-mails): about half a minor unit per e-mail.
        spendMinor: Math.round(listSize * EMAIL_COST_PER_SEND),
      });
    }
    const flows = [
      ['flow-welcome', 'Welcome series', 0.5],
      ['flow-abandoned-cart', 'Abandoned cart', 0.35],
      ['flow-post-purchase', 'Post-purchase', 0.15],
    ] as const;
    const flowShare = dayPlan.newsletter ? 0.4 : 1;
    for (const [index, [campaignId, name, share]] of flows.entries()) {
      const sends = Math.round(dayPlan.expectedOrders * (1.2 + r(10 + index)) * (index === 1 ? 2 : 1));
      const orders = Math.round(claimed * flowShare * share);
      rows.push({
        ...base,
        campaignId,
        campaignName: name,
        sends,
        opens: Math.round(sends * (0.45 + r(20 + index) * 0.1)),
        clicks: Math.round(sends * (0.05 + r(30 + index) * 0.03)),
        attributedOrders: orders,
        attributedRevenueMinor: Math.round(orders * plan.averageOrderMinor),
        spendMinor: Math.round(sends * EMAIL_COST_PER_SEND),
      });
    }
  }
  return rows;
}
