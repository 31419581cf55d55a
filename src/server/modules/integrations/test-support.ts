import type { MikroORM } from '@mikro-orm/postgresql';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import type { PlatformKey } from '../../../shared/platforms.ts';
import type { ConnectorCredentials } from '../../connectors/connector.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import type { IntegrationsSettings } from './integrations-runtime.ts';
import { sealCredentials } from './sync-runner.ts';

// Shared by the sync engine's tests (not by production code).

/** A new store with `platform` connected as connecting leaves it: the account's id, the credentials sealed with `settings`. */
export async function connectedStore(
  orm: MikroORM,
  settings: IntegrationsSettings,
  platform: PlatformKey,
  credentials: ConnectorCredentials,
  options: { accountId: string; timezone?: string; currency?: string },
): Promise<{ storeId: number; connectionId: number }> {
  const store = await createCommerceStore(orm, { timezone: options.timezone ?? 'UTC', currency: options.currency ?? 'USD' });
  const em = orm.em.fork();
  const connection = em.create(PlatformConnection, { store: store.id, platform, status: 'connected', connected: true, accountId: options.accountId });
  await em.flush();
  sealCredentials(settings, connection, credentials);
  await em.flush();
  return { storeId: store.id, connectionId: connection.id };
}
