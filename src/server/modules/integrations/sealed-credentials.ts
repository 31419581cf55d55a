import type { ConnectorCredentials } from '../../connectors/connector.ts';
import type { PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import type { IntegrationsSettings } from './integrations-runtime.ts';

// A connection's credentials exist in the database only sealed (AES-256-GCM), bound to the
// connection's id and platform so that a sealed blob copied to another connection does not open.

export function credentialBinding(connection: Pick<PlatformConnectionEntity, 'id' | 'platform'>): string {
  return `connection:${connection.id}:${connection.platform}`;
}

export function openCredentials(settings: IntegrationsSettings, connection: PlatformConnectionEntity): ConnectorCredentials | null {
  if (!connection.sealedCredentials) return null;
  return settings.vault.open(connection.sealedCredentials, credentialBinding(connection));
}

export function sealCredentials(settings: IntegrationsSettings, connection: PlatformConnectionEntity, credentials: ConnectorCredentials): void {
  connection.sealedCredentials = settings.vault.seal(credentials, credentialBinding(connection));
}
