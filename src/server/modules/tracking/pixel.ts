import path from 'node:path';
import { fileURLToPath } from 'node:url';

// GET /p.js: the pixel (src/pixel/p.ts) bundled and minified by rolldown (Vite's bundler) the first
// time it is asked for, then served from memory with its gzip beside it.

export const PIXEL_SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../pixel/p.ts');

export async function buildPixel(): Promise<string> {
  const { build } = await import('rolldown');
  const output = await build({
    input: PIXEL_SOURCE,
    write: false,
    platform: 'browser',
    logLevel: 'silent',
    output: { format: 'iife', minify: true, comments: false },
  });
  const chunk = output.output.find((item) => item.type === 'chunk');
  if (!chunk || chunk.type !== 'chunk') throw new Error('The pixel build produced no code');
  return chunk.code.trim();
}
