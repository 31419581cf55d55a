import { z } from 'zod';

/** The default demo: 12 months, about 10,000 orders, loaded into the active store. */
export const demoLoadInput = z.object({}).optional();

export const demoLoadOutput = z.object({
  orders: z.number(),
  refunds: z.number(),
  products: z.number(),
  adMetricRows: z.number(),
  emailMetricRows: z.number(),
  milliseconds: z.number(),
});

export type DemoLoadOutput = z.infer<typeof demoLoadOutput>;

export const STORE_HAS_DATA_MESSAGE = 'This store already has data';
export const DEMO_ALREADY_LOADING_MESSAGE = 'Demo data is already being loaded into this store';
