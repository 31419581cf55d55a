import { z } from 'zod';
import { router } from '../../trpc/init.ts';
import { authedProcedure } from '../../trpc/procedures.ts';
import { activeStoreOf } from '../stores/stores.service.ts';
import { PlatformConnection } from './platform-connection.entity.ts';

const connectionStatusEntry = z.object({
  platform: z.string(),
  connected: z.boolean(),
  lastChecked: z.string().nullable(),
});

export const connectionsRouter = router({
  /** Health of the active store's platform connections, for the header widget. */
  status: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/connection-status', tags: ['integrations'], summary: "The active store's platform connections" } })
    .input(z.void())
    .output(z.array(connectionStatusEntry))
    .query(async ({ ctx }) => {
      const store = await activeStoreOf(ctx.em, ctx.user, ctx.guestMode ? ctx.session.guestActiveStoreId : null);
      if (!store) return [];
      // A row that only remembers settings of a platform never connected is not a connection.
      const connections = await ctx.em.find(
        PlatformConnection,
        { store: store.id, $or: [{ connected: true }, { status: { $ne: 'not_connected' } }] },
        { orderBy: { id: 'asc' } },
      );
      return connections.map((connection) => ({
        platform: connection.platform,
        connected: connection.connected,
        lastChecked: connection.lastCheckedAt?.toISOString() ?? null,
      }));
    }),
});
