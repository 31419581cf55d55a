// npm run dev: the Vite dev server (hot reload) on :5173 and the API on :3001, restarted on change.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const apiPort = process.env.API_PORT ?? '3001';
const children: ChildProcess[] = [];

function run(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} stopped (${signal ?? code}); stopping the rest.`);
      void stop(code ?? 1);
    }
  });
  children.push(child);
}

let stopping = false;
async function stop(code: number) {
  stopping = true;
  await Promise.all(
    children.map((child) => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    })),
  );
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

run('API', process.execPath, ['--watch-path=src/server', '--watch-path=src/shared', '--watch-preserve-output', 'src/server/main.ts'], {
  PORT: apiPort,
  NODE_ENV: 'development',
});
run('Vite', path.join(root, 'node_modules/.bin/vite'), ['--port', process.env.VITE_PORT ?? '5173'], { API_PORT: apiPort });
