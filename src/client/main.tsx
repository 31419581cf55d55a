import { QueryClientProvider } from '@tanstack/react-query';
import { LucideProvider } from 'lucide-react';
import { StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { Toaster } from './components/toast.tsx';
import { AuthProvider } from './lib/auth.tsx';
import { CurrencyProvider } from './lib/currency.tsx';
import './lib/i18n.ts';
import { createQueryClient } from './lib/query-client.ts';
import { recordReferralVisit } from './lib/referral-visit.ts';
import { bootstrapShell } from './lib/shell-bootstrap.ts';
import { ThemeProvider } from './lib/theme.tsx';
import { createTrpcClient, trpc } from './lib/trpc.ts';
import './styles.css';

/**
 * Lucide icons are 1em square so that text-size classes size them. The icons themselves accept any SVG
 * length (`size: string | number`); only the provider's type says number, hence the cast.
 */
const ICON_SIZE = '1em' as unknown as number;

// Created once for the page, so the shell's first request leaves before React renders anything.
const queryClient = createQueryClient();
const trpcClient = createTrpcClient();
bootstrapShell(queryClient, trpcClient);
recordReferralVisit(trpcClient);

function Providers() {
  return (
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <ThemeProvider>
          <LucideProvider size={ICON_SIZE} strokeWidth={2}>
            <AuthProvider>
              <CurrencyProvider>
                {/* Blank until the language's texts are in (one chunk, fetched beside the session request). */}
                <Suspense fallback={null}>
                  <App />
                </Suspense>
                {/* Never suspends (its texts do not wait): a suspended boundary would hide an open toast and freeze its timer. */}
                <Toaster />
              </CurrencyProvider>
            </AuthProvider>
          </LucideProvider>
        </ThemeProvider>
      </QueryClientProvider>
    </trpc.Provider>
  );
}

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element');

createRoot(container).render(
  <StrictMode>
    <Providers />
  </StrictMode>,
);
