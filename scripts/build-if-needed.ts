// Builds the client when dist/client is missing or older than its sources, so `npm start` always serves
// the current code without rebuilding on every start.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const builtIndex = path.join(root, 'dist/client/index.html');
const sources = ['src/client', 'src/shared', 'vite.config.ts', 'package-lock.json'].map((entry) => path.join(root, entry));

function newestChange(entry: string): number {
  if (!existsSync(entry)) return 0;
  const info = statSync(entry);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(entry).reduce((newest, name) => Math.max(newest, newestChange(path.join(entry, name))), info.mtimeMs);
}

const builtAt = existsSync(builtIndex) ? statSync(builtIndex).mtimeMs : 0;
const changedAt = Math.max(...sources.map(newestChange));
if (builtAt >= changedAt) process.exit(0);

console.log(builtAt === 0 ? 'Building the client...' : 'The client changed since the last build; rebuilding...');
const result = spawnSync(path.join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
