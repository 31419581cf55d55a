import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { useAuth } from './auth.tsx';
import { useCurrency } from './currency.tsx';
import { useTheme } from './theme.tsx';

function Probe({ hook }: { hook: () => unknown }) {
  hook();
  return null;
}

describe('hooks used outside their providers', () => {
  it.each([
    ['useAuth', useAuth, 'useAuth must be used within an AuthProvider'],
    ['useTheme', useTheme, 'useTheme must be used within a ThemeProvider'],
    ['useCurrency', useCurrency, 'useCurrency must be used within a CurrencyProvider'],
  ])('%s throws a clear error', (_name, hook, message) => {
    expect(() => renderToString(<Probe hook={hook} />)).toThrow(message);
  });
});
