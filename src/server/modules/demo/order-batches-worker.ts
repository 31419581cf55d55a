// Runs in a worker thread (see demoOrderBatchesAhead): generates the demo's order batches and posts
// each as JSON, at most a few ahead of what the loader asked for.
import { parentPort, workerData } from 'node:worker_threads';
import { demoOrderBatches, demoPlan, type DemoOptions, type DemoStore } from './generator.ts';

const { store, options } = workerData as { store: DemoStore; options: DemoOptions & { now: string } };
const port = parentPort!;
let credit = 0;
let wake: (() => void) | null = null;
port.on('message', (wanted: number) => {
  credit += wanted;
  wake?.();
});

for (const batch of demoOrderBatches(demoPlan(store, { ...options, now: new Date(options.now) }))) {
  while (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
  credit -= 1;
  port.postMessage(JSON.stringify(batch));
}
port.postMessage(null);
port.close();
