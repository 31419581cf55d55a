import { AuditLogEntry } from '../modules/admin/audit-log.entity.ts';
import { PlatformConnection } from '../modules/connections/platform-connection.entity.ts';
import { Session } from '../modules/sessions/session.entity.ts';
import { Store } from '../modules/stores/store.entity.ts';
import { Plan } from '../modules/subscriptions/plan.entity.ts';
import { Subscription } from '../modules/subscriptions/subscription.entity.ts';
import { User } from '../modules/users/user.entity.ts';

export const entities = [User, Store, Plan, Subscription, Session, AuditLogEntry, PlatformConnection];
