// The Shopify fake of bench/shopify-backfill.ts in a process of its own, as the real platform would
// be, so that the benchmark's memory figure is the sync runner's alone. Started with fork(): takes its
// options as JSON in argv[2], answers { url, shop, initialToken } over IPC, and stops when the parent
// disconnects.
import { startShopifyFake, type ShopifyFakeOptions } from '../test/fakes/shopify.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as ShopifyFakeOptions & { from?: string; to?: string };
const fake = await startShopifyFake({
  ...options,
  from: options.from ? new Date(options.from) : undefined,
  to: options.to ? new Date(options.to) : undefined,
});
process.send!({ url: fake.url, shop: fake.shop, initialToken: fake.initialToken });
process.on('disconnect', () => {
  void fake.close().finally(() => process.exit(0));
});
