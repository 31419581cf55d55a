import { XIcon } from 'lucide-react';
import { useCallback, useId } from 'react';
import { useTranslation } from 'react-i18next';
import { CHANNELS, ORDER_STATUSES } from '../../../shared/commerce-constants.ts';
import { CUSTOMER_TYPES, ORDER_PLATFORMS, ORDER_SEARCH_MAX_LENGTH, type CustomerType } from '../../../shared/orders.ts';
import { platformDisplayName } from '../../../shared/platforms.ts';
import { Popover } from '../../components/popover.tsx';
import { SearchBox } from '../../components/search-box.tsx';
import { useChannelName } from '../../components/kpi-card.tsx';
import type { OrdersView, OrdersViewState } from './orders-url-state.ts';

interface MultiSelectProps<T extends string> {
  label: string;
  options: readonly T[];
  optionLabel: (value: T) => string;
  selected: readonly T[];
  onChange: (selected: T[]) => void;
  testId: string;
}

/** A filter button whose panel holds one checkbox per value; nothing ticked means every value. */
function MultiSelectFilter<T extends string>({ label, options, optionLabel, selected, onChange, testId }: MultiSelectProps<T>) {
  const { t } = useTranslation('orders');
  const groupId = useId();
  const toggle = (value: T) => onChange(selected.includes(value) ? selected.filter((item) => item !== value) : options.filter((option) => option === value || selected.includes(option)));
  return (
    <Popover
      testId={testId}
      align="start"
      // Drawn as a select, like the customer and platform filters beside it (same caret, weight, border).
      triggerClassName={`select select-sm w-auto cursor-pointer ${selected.length ? 'select-primary' : ''}`}
      panelClassName="w-60 p-2"
      trigger={
        <>
          {label}
          {selected.length > 0 && <span className="badge badge-xs badge-primary tabular-nums">{selected.length}</span>}
        </>
      }
    >
      {() => (
        <fieldset aria-labelledby={groupId}>
          <legend id={groupId} className="sr-only">
            {label}
          </legend>
          <ul className="max-h-72 overflow-y-auto">
            {options.map((option) => (
              <li key={option}>
                <label className="hover:bg-base-200 flex cursor-pointer items-center gap-2 rounded-field px-2 py-1.5 text-sm">
                  <input type="checkbox" className="checkbox checkbox-sm checkbox-primary" checked={selected.includes(option)} onChange={() => toggle(option)} value={option} />
                  {optionLabel(option)}
                </label>
              </li>
            ))}
          </ul>
          {selected.length > 0 && (
            <button type="button" className="btn btn-ghost btn-xs mt-1 w-full" onClick={() => onChange([])}>
              {t('toolbar.any')}
            </button>
          )}
        </fieldset>
      )}
    </Popover>
  );
}

export function OrdersToolbar({ state }: { state: OrdersViewState }) {
  const { t } = useTranslation('orders');
  const channelName = useChannelName();
  const { view, update, hasFilters, clearFilters } = state;
  const set = (changes: Partial<OrdersView>) => update(changes);
  const onSearch = useCallback((search: string) => update({ search }), [update]);

  return (
    <div className="flex flex-col gap-2 lg:flex-row lg:flex-wrap lg:items-center" role="search" aria-label={t('toolbar.label')}>
      <SearchBox
        value={view.search}
        onSearch={onSearch}
        label={t('toolbar.search')}
        placeholder={t('toolbar.searchPlaceholder')}
        maxLength={ORDER_SEARCH_MAX_LENGTH}
        testId="orders-search"
      />
      <div className="flex flex-wrap items-center gap-2">
        <MultiSelectFilter
          label={t('toolbar.status')}
          options={ORDER_STATUSES}
          optionLabel={(status) => t(`statuses.${status}`)}
          selected={view.statuses}
          onChange={(statuses) => set({ statuses })}
          testId="filter-status"
        />
        <MultiSelectFilter
          label={t('toolbar.channel')}
          options={CHANNELS}
          optionLabel={channelName}
          selected={view.channels}
          onChange={(channels) => set({ channels })}
          testId="filter-channel"
        />
        <select
          className="select select-sm w-auto"
          aria-label={t('toolbar.customerType')}
          value={view.customerType ?? ''}
          onChange={(event) => set({ customerType: (event.target.value || null) as CustomerType | null })}
          data-testid="filter-customer"
        >
          <option value="">{t('toolbar.allCustomers')}</option>
          {CUSTOMER_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`customerTypes.${type}`)}
            </option>
          ))}
        </select>
        <select
          className="select select-sm w-auto"
          aria-label={t('toolbar.platform')}
          value={view.platforms[0] ?? ''}
          onChange={(event) => set({ platforms: event.target.value ? [event.target.value as (typeof ORDER_PLATFORMS)[number]] : [] })}
          data-testid="filter-platform"
        >
          <option value="">{t('toolbar.allPlatforms')}</option>
          {ORDER_PLATFORMS.map((platform) => (
            <option key={platform} value={platform}>
              {platformDisplayName(platform)}
            </option>
          ))}
        </select>
        {hasFilters && (
          <button type="button" className="btn btn-ghost btn-sm gap-1" onClick={clearFilters} data-testid="clear-filters">
            <XIcon className="size-3.5" aria-hidden="true" />
            {t('toolbar.clear')}
          </button>
        )}
      </div>
    </div>
  );
}
