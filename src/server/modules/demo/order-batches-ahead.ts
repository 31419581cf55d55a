import { Worker } from 'node:worker_threads';
import type { DemoBatch, DemoPlan } from './generator.ts';

/** Batches generated ahead of the one being written: enough to hide the generator, little memory. */
const BATCHES_AHEAD = 2;

/**
 * The plan's order batches (demoOrderBatches), generated in a worker thread while the caller writes
 * the previous ones: the generator's CPU time runs beside the database's instead of before it.
 * Stops the worker when the caller stops early.
 */
export async function* demoOrderBatchesAhead(plan: DemoPlan): AsyncGenerator<DemoBatch> {
  const worker = new Worker(new URL('./order-batches-worker.ts', import.meta.url), {
    workerData: { store: plan.store, options: { ...plan.options, now: plan.now.toISOString() } },
  });
  const arrived: (string | null)[] = [];
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  worker.on('message', (message: string | null) => {
    arrived.push(message);
    wake?.();
  });
  worker.on('error', (error) => {
    failure = error;
    wake?.();
  });
  worker.on('exit', (code) => {
    if (code !== 0 && failure === null) failure = new Error(`The demo generator stopped (exit code ${code})`);
    wake?.();
  });
  worker.postMessage(BATCHES_AHEAD);
  try {
    while (true) {
      while (arrived.length === 0 && failure === null) await new Promise<void>((resolve) => (wake = resolve));
      if (arrived.length === 0) throw failure;
      const message = arrived.shift()!;
      if (message === null) return;
      worker.postMessage(1);
      yield JSON.parse(message) as DemoBatch;
    }
  } finally {
    await worker.terminate();
  }
}
