// Keeps the machine's CPUs busy, so that the test suite can be run the way it runs on a shared,
// loaded machine (`npm run test:busy`).
//
//   node scripts/cpu-hog.ts [--workers N] [--seconds S]
//
// N threads (default: one per CPU, or CPU_HOG_WORKERS) each spin at 100 % until the hog is stopped:
// Ctrl-C, SIGTERM, after S seconds when given, or when the process that started it has gone (so a
// killed `npm run test:busy` never leaves it behind). On stopping it prints how long it ran and the
// 1-minute load average it saw (sampled every 5 s).
import os from 'node:os';
import { isMainThread, Worker } from 'node:worker_threads';

/** One worker: arithmetic in a loop that never ends (the main thread terminates it). */
function spin(): never {
  let x = 1;
  for (;;) x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
}

interface Options {
  workers: number;
  seconds: number | null;
}

function positiveInteger(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!text || !Number.isInteger(value) || value < 1) {
    console.error(`cpu-hog: ${name} must be a whole number of at least 1, got ${JSON.stringify(text ?? '')}`);
    process.exit(2);
  }
  return value;
}

function parseOptions(argv: string[]): Options {
  const envWorkers = process.env.CPU_HOG_WORKERS;
  const options: Options = {
    workers: envWorkers ? positiveInteger('CPU_HOG_WORKERS', envWorkers) : os.availableParallelism(),
    seconds: null,
  };
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index];
    if (flag === '--workers') options.workers = positiveInteger('--workers', argv[++index]);
    else if (flag === '--seconds') options.seconds = positiveInteger('--seconds', argv[++index]);
    else {
      console.error(`cpu-hog: unknown argument ${JSON.stringify(flag)}. Usage: node scripts/cpu-hog.ts [--workers N] [--seconds S]`);
      process.exit(2);
    }
  }
  return options;
}

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

function main(): void {
  const options = parseOptions(process.argv.slice(2));
  const parent = process.ppid;
  const startedAt = Date.now();
  const workers = Array.from({ length: options.workers }, () => new Worker(new URL(import.meta.url)));
  const loads: number[] = [os.loadavg()[0]!];
  console.log(`cpu-hog: ${options.workers} ${options.workers === 1 ? 'worker' : 'workers'} spinning on ${os.availableParallelism()} CPUs (pid ${process.pid}); stop with Ctrl-C or kill ${process.pid}`);

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(workers.map((worker) => worker.terminate()));
    const mean = loads.reduce((sum, load) => sum + load, 0) / loads.length;
    const [one, five, fifteen] = os.loadavg().map((load) => load.toFixed(2));
    console.log(
      `cpu-hog: stopped (${reason}) after ${duration(Date.now() - startedAt)}; 1-minute load average while it ran: ` +
        `mean ${mean.toFixed(2)}, max ${Math.max(...loads).toFixed(2)}, min ${Math.min(...loads).toFixed(2)} ` +
        `(${loads.length} samples); now ${one} / ${five} / ${fifteen}`,
    );
    process.exit(0);
  };

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
  if (options.seconds !== null) setTimeout(() => void stop(`${options.seconds} s elapsed`), options.seconds * 1000);
  setInterval(() => loads.push(os.loadavg()[0]!), 5_000);
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      void stop('the process that started it has gone');
    }
  }, 1_000);
}

if (isMainThread) main();
else spin();
