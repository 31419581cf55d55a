import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOCALES_DIR = path.dirname(fileURLToPath(import.meta.url));
const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

type Tree = { [key: string]: string | Tree };

/** "a.b.c" for every string, plural forms folded into their base key ("count_one" -> "count"). */
function flatten(tree: Tree, prefix = '', into = new Map<string, string[]>()): Map<string, string[]> {
  for (const [key, value] of Object.entries(tree)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') {
      const base = full.replace(PLURAL_SUFFIX, '');
      const forms = into.get(base) ?? [];
      const form = PLURAL_SUFFIX.exec(full)?.[1];
      if (form) forms.push(form);
      into.set(base, forms);
    } else {
      flatten(value, full, into);
    }
  }
  return into;
}

function namespaces(): string[] {
  const all = new Set<string>();
  for (const language of LANGUAGES) {
    for (const file of readdirSync(path.join(LOCALES_DIR, language))) if (file.endsWith('.json')) all.add(file.replace(/\.json$/, ''));
  }
  return [...all].sort();
}

function load(language: string, namespace: string): Map<string, string[]> | null {
  try {
    return flatten(JSON.parse(readFileSync(path.join(LOCALES_DIR, language, `${namespace}.json`), 'utf8')) as Tree);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

describe('translations', () => {
  it('finds the namespaces, including common and shell', () => {
    expect(namespaces()).toEqual(expect.arrayContaining(['common', 'shell']));
  });

  it.each(namespaces())('namespace "%s" has every key in en, es, fr and de', (namespace) => {
    const byLanguage = Object.fromEntries(LANGUAGES.map((language) => [language, load(language, namespace)]));
    const problems: string[] = [];
    for (const language of LANGUAGES) if (!byLanguage[language]) problems.push(`${language}/${namespace}.json is missing`);
    const allKeys = new Set<string>();
    for (const keys of Object.values(byLanguage)) for (const key of keys?.keys() ?? []) allKeys.add(key);
    for (const key of [...allKeys].sort()) {
      for (const language of LANGUAGES) {
        const keys = byLanguage[language];
        if (!keys) continue;
        if (!keys.has(key)) problems.push(`${language}: ${namespace}:${key} is missing`);
        else {
          const forms = keys.get(key)!;
          // A plural key needs at least its "other" form in every language.
          if (forms.length > 0 && !forms.includes('other')) problems.push(`${language}: ${namespace}:${key}_other is missing`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('has no empty translation in any language', () => {
    const empty: string[] = [];
    for (const namespace of namespaces()) {
      for (const language of LANGUAGES) {
        const walk = (tree: Tree, prefix: string) => {
          for (const [key, value] of Object.entries(tree)) {
            if (typeof value === 'string') {
              if (!value.trim()) empty.push(`${language}: ${namespace}:${prefix}${key}`);
            } else walk(value, `${prefix}${key}.`);
          }
        };
        try {
          walk(JSON.parse(readFileSync(path.join(LOCALES_DIR, language, `${namespace}.json`), 'utf8')) as Tree, '');
        } catch {
          // A missing file is reported by the test above.
        }
      }
    }
    expect(empty).toEqual([]);
  });

  it('keeps the spec texts of the shell word for word in English', () => {
    const shell = JSON.parse(readFileSync(path.join(LOCALES_DIR, 'en', 'shell.json'), 'utf8'));
    expect(shell.connection.title).toBe('API Connection Status');
    expect(shell.connection.empty).toBe('No connection status available');
    expect(shell.connection.updated).toBe('Updated: {{time}}');
    expect(shell.connection.justNow).toBe('Just now');
    expect(shell.toast.subscriptionRequired).toEqual({
      title: 'Subscription Required',
      description: 'You need an active subscription to access this feature',
    });
    expect(shell.firstStore.cannotClose).toEqual({ title: 'Cannot Close', description: 'You must create a store to continue.' });
    expect(shell.firstStore.limitReached).toEqual({
      title: 'Dashboard Limit Reached',
      description: "You've reached your dashboard limit. Please upgrade your plan to create more dashboards.",
    });
    expect(shell.firstStore.validationError).toBe('Validation Error');
    expect(shell.firstStore.createFailed).toBe('Failed to create store: {{message}}');
    expect(shell.store.switchFailed).toBe('Failed to switch store: {{message}}');
    expect(shell.guest).toMatchObject({ viewingAs: 'Viewing as: {{name}}', exit: 'Exit Guest Mode', exitFailed: 'Failed to exit guest mode' });
    expect(shell.account.loggingOut).toBe('Logging out...');
    expect(shell.account.logoutFailed).toBe('Logout failed');
    expect(shell.account.links).toEqual({
      profile: 'Profile',
      guestUsers: 'Guest Users',
      affiliate: 'Affiliate Dashboard',
      pricing: 'Pricing & Plans',
      settings: 'Settings',
      helpCenter: 'Help Center',
      requestFeature: 'Request A Feature',
      storeManagement: 'Store Management',
    });
    expect(shell.account.admin).toEqual({ heading: 'Administration', dashboard: 'Admin Dashboard', emailTemplates: 'Email Templates' });
    expect(shell.account.trial).toMatchObject({ badge: 'Trial', upgrade: 'Upgrade Plan' });
    expect(shell.nav.comingSoon).toBe('Coming Soon');
    const common = JSON.parse(readFileSync(path.join(LOCALES_DIR, 'en', 'common.json'), 'utf8'));
    expect(common.auth.checking).toBe('Checking authentication status...');
  });
});

describe('the texts that load with their pages', () => {
  // Vite needs literal globs, so the list of namespaces kept out of the language bundles is written three times:
  // LONG_TEXT_NAMESPACES, the LONG_TEXT_FILES glob (both in lib/i18n.ts) and each texts-<language>.ts. A namespace
  // missing from one of them is either loaded twice (the first-load budget) or never (its keys shown raw).
  const i18nSource = readFileSync(path.join(LOCALES_DIR, '../lib/i18n.ts'), 'utf8');
  const declared = [...(/LONG_TEXT_NAMESPACES = \[([^\]]*)\]/.exec(i18nSource)?.[1] ?? '').matchAll(/'([a-z-]+)'/g)].map((match) => match[1]).sort();

  it('are the same namespaces in lib/i18n.ts and in every language bundle', () => {
    expect(declared.length).toBeGreaterThan(0);
    const globbed = (/LONG_TEXT_FILES = import\.meta\.glob<Translations>\('\.\.\/locales\/\*\/\{([^}]*)\}\.json'/.exec(i18nSource)?.[1] ?? '').split(',').sort();
    expect(globbed).toEqual(declared);
    for (const language of LANGUAGES) {
      const bundle = readFileSync(path.join(LOCALES_DIR, language, `texts-${language}.ts`), 'utf8');
      const excluded = [...bundle.matchAll(/'!\.\/([a-z-]+)\.json'/g)].map((match) => match[1]).sort();
      expect(excluded, `texts-${language}.ts`).toEqual(declared);
    }
  });
});
