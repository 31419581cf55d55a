import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { OrderDetailOutput } from '../../../shared/orders.ts';
import { DetailDrawer, DrawerSection } from '../../components/detail-drawer.tsx';
import { trpc } from '../../lib/trpc.ts';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { ChannelBadge, CustomerTypeBadge, StatusBadge } from './order-badges.tsx';
import { useOrderMoney, useStoreDateTime } from './order-format.ts';

/** The detail of one order in a panel on the right (a modal <dialog>: Escape, the backdrop and × close it). */
export function OrderDrawer({ orderId, onClose }: { orderId: number | null; onClose: () => void }) {
  const { t } = useTranslation('orders');
  const detail = trpc.orders.detail.useQuery({ orderId: orderId ?? 0 }, { enabled: orderId !== null });

  return (
    <DetailDrawer
      open={orderId !== null}
      onClose={onClose}
      titleId="order-drawer-title"
      title={detail.data ? t('drawer.title', { number: detail.data.order.orderNumber ?? detail.data.order.externalId }) : t('drawer.loading')}
      subtitle={detail.data && <DrawerSubtitle detail={detail.data} />}
      closeLabel={t('drawer.close')}
      loadingLabel={t('drawer.loading')}
      query={detail}
      testId="order-drawer"
    >
      {detail.data && <OrderDetailBody detail={detail.data} />}
    </DetailDrawer>
  );
}

function DrawerSubtitle({ detail }: { detail: OrderDetailOutput }) {
  const dateTime = useStoreDateTime();
  const { order } = detail;
  return (
    <div className="text-base-content/70 mt-1 flex flex-wrap items-center gap-2 text-sm">
      <span>{dateTime(order.placedAt)}</span>
      <StatusBadge status={order.status} isTest={order.isTest} />
      <ChannelBadge channel={order.channel} />
    </div>
  );
}

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-sm">
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-base-content/70">{label}</dt>
          <dd className="min-w-0 text-right break-words tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function OrderDetailBody({ detail }: { detail: OrderDetailOutput }) {
  const { t } = useTranslation('orders');
  const format = useFigureFormat();
  const dateTime = useStoreDateTime();
  const { order, lines, refunds, attribution, customer } = detail;
  const orderMoney = useOrderMoney();
  const money = (minor: number) => orderMoney(minor, order.currency);
  /** What is taken off, with a minus sign unless it is nothing. */
  const deduction = (minor: number) => money(minor === 0 ? 0 : -minor);
  const converted = order.currency !== detail.currency;

  const attributionRows = useMemo(
    () =>
      (
        [
          ['landingSite', attribution.landingSite],
          ['referrer', attribution.referrer],
          ['utmSource', attribution.utmSource],
          ['utmMedium', attribution.utmMedium],
          ['utmCampaign', attribution.utmCampaign],
          ['utmContent', attribution.utmContent],
          ['utmTerm', attribution.utmTerm],
          ['gclid', attribution.gclid],
          ['fbclid', attribution.fbclid],
          ['msclkid', attribution.msclkid],
          ['ttclid', attribution.ttclid],
        ] as const
      ).filter(([, value]) => value !== null),
    [attribution],
  );

  return (
    <>
      {!order.counts && (
        <p className="alert alert-warning alert-soft text-sm" role="note">
          {order.isTest ? t('drawer.testNote') : order.status === 'unpaid' ? t('drawer.unpaidNote') : t('drawer.cancelledNote')}
        </p>
      )}

      <DrawerSection title={t('drawer.amounts')} testId="drawer-amounts">
        <Facts
          rows={[
            [t('columns.gross'), money(order.amounts.gross)],
            [t('drawer.discounts'), deduction(order.amounts.discounts)],
            [t('drawer.refunds'), deduction(order.amounts.refunds)],
            [t('drawer.shipping'), money(order.amounts.shipping)],
            [t('drawer.taxes'), money(order.amounts.taxes)],
            [
              t('columns.netSales'),
              <span key="net" className="font-semibold">
                {money(order.amounts.netSales)}
                {converted && <span className="text-base-content/65 block text-xs font-normal">≈ {orderMoney(order.displayAmounts.netSales, detail.currency)}</span>}
              </span>,
            ],
          ]}
        />
        <p className="text-base-content/60 mt-2 text-xs">{t('drawer.netSalesHint')}</p>
      </DrawerSection>

      <DrawerSection title={t('drawer.lines', { count: lines.length })} testId="drawer-lines">
        {lines.length === 0 ? (
          <p className="text-base-content/70 text-sm">{t('drawer.noLines')}</p>
        ) : (
          <ul className="divide-base-content/10 divide-y text-sm">
            {lines.map((line) => (
              <li key={line.id} className="flex items-start justify-between gap-3 py-2">
                <div className="min-w-0">
                  <p className="font-medium break-words">{line.title}</p>
                  <p className="text-base-content/65 text-xs">
                    {[line.sku, t('drawer.lineQuantity', { quantity: line.quantity, price: money(line.unitPrice) })].filter(Boolean).join(' · ')}
                  </p>
                  <p className="text-base-content/65 text-xs">
                    {line.discount > 0 && <span>{t('drawer.lineDiscount', { amount: money(line.discount) })} · </span>}
                    {line.unitCost === null ? t('drawer.costUnknown') : t('drawer.unitCost', { amount: money(line.unitCost) })}
                  </p>
                </div>
                <span className="shrink-0 font-medium tabular-nums">{money(line.total)}</span>
              </li>
            ))}
          </ul>
        )}
      </DrawerSection>

      <DrawerSection title={t('drawer.refundsTitle')} testId="drawer-refunds">
        {refunds.length === 0 ? (
          <p className="text-base-content/70 text-sm">{t('drawer.noRefunds')}</p>
        ) : (
          <ul className="divide-base-content/10 divide-y text-sm">
            {refunds.map((refund) => (
              <li key={refund.id} className="flex items-start justify-between gap-3 py-2">
                <div className="min-w-0">
                  <p>{dateTime(refund.refundedAt)}</p>
                  <p className="text-base-content/65 text-xs break-words">{refund.reason ?? t('drawer.noReason')}</p>
                </div>
                <span className="text-error shrink-0 font-medium tabular-nums">{orderMoney(-refund.amount, refund.currency)}</span>
              </li>
            ))}
          </ul>
        )}
      </DrawerSection>

      <DrawerSection title={t('drawer.attribution')} testId="drawer-attribution">
        <div className="mb-2">
          <ChannelBadge channel={attribution.channel} />
        </div>
        {attributionRows.length === 0 ? (
          <p className="text-base-content/70 text-sm">{t('drawer.noAttribution')}</p>
        ) : (
          <Facts rows={attributionRows.map(([key, value]) => [t(`attribution.${key}`), <span key={key} className="font-mono text-xs">{value}</span>])} />
        )}
      </DrawerSection>

      <DrawerSection title={t('drawer.customer')} testId="drawer-customer">
        {customer === null ? (
          <p className="text-base-content/70 text-sm">{t('drawer.guestCheckout')}</p>
        ) : (
          <Facts
            rows={[
              [t('drawer.customerType'), <CustomerTypeBadge key="type" isNew={order.isNewCustomer} counts={order.counts} />],
              [t('drawer.firstOrder'), customer.firstOrderAt ? dateTime(customer.firstOrderAt) : '—'],
              [t('drawer.ordersCount'), format.integer(customer.ordersCount)],
              [t('drawer.totalSpent'), orderMoney(customer.totalSpent, customer.totalSpentCurrency)],
            ]}
          />
        )}
      </DrawerSection>
    </>
  );
}
