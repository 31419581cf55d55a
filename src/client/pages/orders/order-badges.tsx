import { useTranslation } from 'react-i18next';
import type { OrderStatus } from '../../../shared/commerce.ts';
import { useChannelName } from '../../components/kpi-card.tsx';

const STATUS_CLASS: Record<OrderStatus, string> = {
  paid: 'badge-success',
  pending: 'badge-warning',
  partially_refunded: 'badge-info',
  refunded: 'badge-error',
  cancelled: 'badge-neutral',
  unpaid: 'badge-neutral',
};

/** The order's status, and "Test" beside it for a test order (neither counts in any total). */
export function StatusBadge({ status, isTest = false }: { status: OrderStatus; isTest?: boolean }) {
  const { t } = useTranslation('orders');
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <span className={`badge badge-sm badge-soft whitespace-nowrap ${STATUS_CLASS[status]}`} data-testid="status-badge" data-status={status}>
        {t(`statuses.${status}`)}
      </span>
      {isTest && (
        <span className="badge badge-sm badge-outline whitespace-nowrap" data-testid="test-badge" title={t('notCounted')}>
          {t('test')}
        </span>
      )}
    </span>
  );
}

export function ChannelBadge({ channel }: { channel: string }) {
  const channelName = useChannelName();
  return (
    <span className="badge badge-sm badge-ghost border-base-content/15 whitespace-nowrap" data-testid="channel-badge" data-channel={channel}>
      {channelName(channel)}
    </span>
  );
}

/** New or returning customer; nothing for cancelled and test orders, which are neither. */
export function CustomerTypeBadge({ isNew, counts }: { isNew: boolean; counts: boolean }) {
  const { t } = useTranslation('orders');
  if (!counts) return <span className="text-base-content/50">—</span>;
  return (
    <span className={`badge badge-sm whitespace-nowrap ${isNew ? 'badge-primary badge-soft' : 'badge-ghost'}`} data-testid="customer-badge">
      {isNew ? t('customerTypes.new') : t('customerTypes.returning')}
    </span>
  );
}
