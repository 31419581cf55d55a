import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSessionSecret } from './app.ts';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'secrets-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

describe('secrets kept in the data directory', () => {
  it('generates the session secret once, owner-readable only, and reuses it on the next start', async () => {
    const first = resolveSessionSecret({ sessionSecret: undefined, dataDir });
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(resolveSessionSecret({ sessionSecret: undefined, dataDir })).toBe(first);
    expect((await readFile(path.join(dataDir, 'session-secret'), 'utf8')).trim()).toBe(first);
    expect((await stat(path.join(dataDir, 'session-secret'))).mode & 0o077).toBe(0);
  });

  it('replaces a damaged file and prefers SESSION_SECRET when set', async () => {
    await writeFile(path.join(dataDir, 'session-secret'), 'short\n');
    const replaced = resolveSessionSecret({ sessionSecret: undefined, dataDir });
    expect(replaced).not.toBe('short');
    expect(replaced.length).toBeGreaterThanOrEqual(32);
    expect(resolveSessionSecret({ sessionSecret: 'e'.repeat(40), dataDir })).toBe('e'.repeat(40));
  });
});
