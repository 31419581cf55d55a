import { useTranslation } from 'react-i18next';
import { AT_RISK_CHURN, EXPECTED_ORDERS_DAYS, type LoyaltyCustomerRow } from '../../../shared/loyalty.ts';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../../server/trpc/router.ts';
import { DetailDrawer, DrawerSection } from '../../components/detail-drawer.tsx';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { useStoreDateTime } from '../../lib/store-time.ts';
import { trpc } from '../../lib/trpc.ts';

type CustomerDetail = inferRouterOutputs<AppRouter>['loyalty']['customer'];

/** One customer in a panel on the right (the app's drawer: a modal <dialog>, Escape, the backdrop and × close it). */
export function CustomerDrawer({ customerId, onClose }: { customerId: number | null; onClose: () => void }) {
  const { t } = useTranslation('loyalty');
  const detail = trpc.loyalty.customer.useQuery({ customerId: customerId ?? 0 }, { enabled: customerId !== null });
  const customer = detail.data?.customer;
  return (
    <DetailDrawer
      open={customerId !== null}
      onClose={onClose}
      titleId="customer-drawer-title"
      title={customer ? (customer.name ?? customer.externalId) : t('drawer.loading')}
      subtitle={customer && <p className="text-base-content/70 truncate text-sm">{customer.email ?? t('customers.noEmail')}</p>}
      closeLabel={t('drawer.close')}
      loadingLabel={t('drawer.loading')}
      query={detail}
      testId="customer-drawer"
    >
      {detail.data && <CustomerBody detail={detail.data} />}
    </DetailDrawer>
  );
}

function segmentBadge(row: LoyaltyCustomerRow) {
  return row.segment === 'at_risk' || row.segment === 'cant_lose_them' || row.segment === 'lost' ? 'badge-error' : row.segment === 'champions' || row.segment === 'loyal' ? 'badge-success' : 'badge-neutral';
}

function CustomerBody({ detail }: { detail: CustomerDetail }) {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const dateTime = useStoreDateTime();
  const { customer, inputs, orders } = detail;
  const model = detail.model?.model ?? 'rfm';
  const days = (value: number) => format.integer(Math.round(value));
  const scores: string[] = [
    t('explain.rfm', { r: customer.r, f: customer.f, m: customer.m, daysSince: days(inputs.daysSinceLastOrder), orders: format.integer(customer.orders), spent: format.money(customer.spentMinor, detail.currency) }),
    t('explain.segment', { segment: t(`segmentNames.${customer.segment}`), rule: t(`segmentRules.${customer.segment}`) }),
  ];
  if (customer.pAlive !== null && customer.churnRisk !== null) {
    scores.push(
      t('explain.alive', {
        repeat: format.integer(inputs.repeatOrders),
        recency: days(inputs.recencyDays),
        age: days(inputs.ageDays),
        alive: format.percent(customer.pAlive, 0),
        risk: format.percent(customer.churnRisk, 0),
      }) + (customer.churnRisk >= AT_RISK_CHURN ? ` ${t('explain.atRisk', { threshold: format.percent(AT_RISK_CHURN, 0) })}` : ''),
    );
  } else scores.push(t('explain.noModel'));
  if (customer.expectedOrders90d !== null) scores.push(t('explain.expected', { orders: format.decimal(customer.expectedOrders90d), days: EXPECTED_ORDERS_DAYS }));
  if (customer.predictedValue12mMinor !== null) scores.push(t('explain.value', { value: format.money(customer.predictedValue12mMinor, detail.currency) }));
  scores.push(
    model === 'bgnbd' && customer.churnRisk !== null && customer.valuePercentile !== null
      ? t('explain.scoreBgnbd', { score: customer.loyaltyScore, alive: format.percent(1 - customer.churnRisk, 0), percentile: format.percent(customer.valuePercentile, 0) })
      : t('explain.scoreRfm', { score: customer.loyaltyScore, sum: customer.r + customer.f + customer.m }),
  );

  return (
    <>
      <div className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-4" data-testid="drawer-figures">
        {(
          [
            [t('drawer.score'), <span key="score" className="text-2xl font-bold">{customer.loyaltyScore}</span>],
            [t('columns.churnRisk'), format.percent(customer.churnRisk, 0)],
            [t('drawer.expectedOrders'), format.decimal(customer.expectedOrders90d)],
            [t('columns.predictedValue'), format.money(customer.predictedValue12mMinor, detail.currency)],
          ] as const
        ).map(([label, value]) => (
          <div key={label} className="bg-base-200/60 rounded-box p-3">
            <p className="text-base-content/70 text-xs">{label}</p>
            <p className="font-semibold tabular-nums">{value}</p>
          </div>
        ))}
      </div>
      <p>
        <span className={`badge badge-soft ${segmentBadge(customer)}`} data-testid="drawer-segment">
          {t(`segmentNames.${customer.segment}`)}
        </span>
      </p>

      <DrawerSection title={t('drawer.explanation')} testId="drawer-explanation">
        <ul className="list-disc space-y-1.5 pl-5 text-sm">
          {scores.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </DrawerSection>

      <DrawerSection title={t('drawer.orders', { count: orders.length })} testId="drawer-orders">
        {orders.length === 0 ? (
          <p className="text-base-content/70 text-sm">{t('drawer.noOrders')}</p>
        ) : (
          <ul className="divide-base-content/10 divide-y text-sm">
            {orders.map((order) => (
              <li key={order.id} className="flex items-start justify-between gap-3 py-2" data-testid="drawer-order">
                <div className="min-w-0">
                  <p className="font-medium">{order.orderNumber ?? `#${order.id}`}</p>
                  <p className="text-base-content/65 text-xs">
                    {dateTime(order.placedAt)}
                    {!order.counts && ` · ${t('drawer.notCounted', { status: order.status })}`}
                  </p>
                </div>
                <span className={`shrink-0 font-medium tabular-nums ${order.counts ? '' : 'text-base-content/60 line-through'}`}>{format.money(order.netSalesMinor, order.currency)}</span>
              </li>
            ))}
          </ul>
        )}
      </DrawerSection>
    </>
  );
}
