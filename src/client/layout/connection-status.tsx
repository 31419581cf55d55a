import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ActivityIcon, CircleCheckIcon, CircleXIcon } from 'lucide-react';
import { Popover } from '../components/popover.tsx';
import { useAuth } from '../lib/auth.tsx';
import { currentLanguage } from '../lib/i18n.ts';
import { CONNECTION_STATUS_QUERY } from '../lib/query-settings.ts';
import { trpc } from '../lib/trpc.ts';
import { platformDisplayName } from '../../shared/platforms.ts';
import { connectionRows, connectionTone, formatLastChecked } from './connection-status-rows.ts';

const TONE_CLASS = {
  loading: 'text-base-content/60 animate-pulse',
  connected: 'text-success',
  disconnected: 'text-warning',
} as const;

/** The header's 'API Connection Status' dropdown (GET /api/connection-status, polled every 30 s). */
export function ConnectionStatus() {
  const { t } = useTranslation('shell');
  const { user } = useAuth();
  const status = trpc.connections.status.useQuery(undefined, { ...CONNECTION_STATUS_QUERY, enabled: user !== null });
  const tone = connectionTone(status.data, status.isPending);
  const rows = connectionRows(status.data ?? []);
  const language = currentLanguage();
  const summary = tone === 'loading' ? t('connection.loading') : tone === 'connected' ? t('connection.anyConnected') : t('connection.noneConnected');

  return (
    <Popover
      label={t('connection.title')}
      testId="connection-status"
      triggerClassName="btn btn-ghost btn-square text-xl"
      panelClassName="w-80 max-w-[calc(100vw-2rem)] p-0"
      trigger={
        <span className={`relative ${TONE_CLASS[tone]}`} data-tone={tone} data-testid="connection-icon">
          <ActivityIcon />
          <span className="sr-only">{summary}</span>
        </span>
      }
    >
      {(close) => (
        <div>
          <div className="border-base-content/10 flex items-center justify-between gap-2 border-b px-4 py-3">
            <h2 className="text-sm font-semibold">{t('connection.title')}</h2>
            <span className={`size-2.5 rounded-full ${tone === 'connected' ? 'bg-success' : tone === 'loading' ? 'bg-base-300 animate-pulse' : 'bg-warning'}`} aria-hidden="true" />
          </div>
          {status.isPending ? (
            <p className="text-base-content/70 flex items-center gap-2 px-4 py-4 text-sm" role="status">
              <span className="loading loading-spinner loading-xs" aria-hidden="true" />
              {t('connection.loading')}
            </p>
          ) : rows.length === 0 ? (
            <p className="text-base-content/75 px-4 py-4 text-sm" data-testid="connection-empty">
              {t('connection.empty')}
            </p>
          ) : (
            <ul className="divide-base-content/10 divide-y" data-testid="connection-rows">
              {rows.map((row) => {
                const when = formatLastChecked(row.lastChecked, language);
                return (
                  <li key={`${row.platform}`} className="flex items-center gap-3 px-4 py-3" data-testid="connection-row" data-connected={row.connected}>
                    {row.connected ? (
                      <CircleCheckIcon className="text-success shrink-0 text-lg" aria-label={t('connection.connected')} role="img" aria-hidden="false" />
                    ) : (
                      <CircleXIcon className="text-error shrink-0 text-lg" aria-label={t('connection.disconnected')} role="img" aria-hidden="false" />
                    )}
                    <div className="min-w-0 flex-1">
                      <p className="truncate text-sm font-medium">{platformDisplayName(row.platform)}</p>
                      <p className="text-base-content/70 text-xs">{t('connection.updated', { time: when ?? t('connection.justNow') })}</p>
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
          <div className="border-base-content/10 border-t p-2">
            <Link href="/integrations" className="btn btn-ghost btn-sm w-full font-normal" onClick={close}>
              {t('connection.manage')}
            </Link>
          </div>
        </div>
      )}
    </Popover>
  );
}
