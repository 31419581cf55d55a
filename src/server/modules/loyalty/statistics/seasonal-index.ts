// The store's seasonal index over a forecast window (README, "Customer loyalty"). BG/NBD has one
// purchase rate per customer for every day of the year, so its expected orders over the next 90
// days are an average season's; a shop's autumn is not. The index is the classical multiplicative
// decomposition's (ratio to a centred moving average): the orders of the same calendar days one
// year (365 days) earlier, per day, divided by the orders per day of the 365 days centred on them.
// Centring cancels a linear trend (a growing store is not mistaken for a season); it needs a whole
// year of history around last year's window, so a store younger than about 1 year + half a year
// has no index (null: the caller uses 1). The index of a 365-day window is 1 by construction.

const YEAR = 365;

/**
 * The index of the `horizon` days after `cutDay` (days cutDay + 1 .. cutDay + horizon), from the
 * store's orders per day (`ordersOnDay(day)`, day numbers) observed from `firstDay` to `cutDay`.
 * Null when the centred year around last year's window is not wholly inside [firstDay, cutDay],
 * when it has no orders, or when the horizon is not 1..365 days.
 */
export function seasonalIndex(ordersOnDay: (day: number) => number, firstDay: number, cutDay: number, horizon: number): number | null {
  if (!Number.isInteger(horizon) || horizon < 1 || horizon > YEAR) return null;
  const windowFrom = cutDay + 1 - YEAR;
  const windowTo = cutDay + horizon - YEAR;
  const before = Math.floor((YEAR - horizon) / 2);
  const yearFrom = windowFrom - before;
  const yearTo = yearFrom + YEAR - 1;
  if (yearFrom < firstDay || yearTo > cutDay) return null;
  let window = 0;
  let year = 0;
  for (let day = yearFrom; day <= yearTo; day++) {
    const orders = ordersOnDay(day);
    year += orders;
    if (day >= windowFrom && day <= windowTo) window += orders;
  }
  if (year <= 0) return null;
  return (window / horizon) / (year / YEAR);
}
