import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from './scripts/precompress.ts';

const apiTarget = `http://localhost:${process.env.API_PORT ?? 3001}`;
// Keep the browser's Host header: the server refuses POSTs whose Origin host differs from Host.
const proxyToApi = { target: apiTarget, changeOrigin: false };

// The React client lives in src/client and is built into dist/client, which the Fastify server serves.
// Test settings belong in vitest.config.ts, not here.
export default defineConfig({
  root: fileURLToPath(new URL('./src/client', import.meta.url)),
  plugins: [react(), tailwindcss(), precompress()],
  build: {
    outDir: '../../dist/client',
    emptyOutDir: true,
  },
  server: {
    proxy: {
      '/api': proxyToApi,
      '/trpc': proxyToApi,
    },
  },
});
