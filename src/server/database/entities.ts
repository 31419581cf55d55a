import { AuditLogEntry } from '../modules/admin/audit-log.entity.ts';
import { PasswordResetToken } from '../modules/auth/password-reset-token.entity.ts';
import { PlatformConnection } from '../modules/connections/platform-connection.entity.ts';
import { EmailTemplate } from '../modules/email/email-template.entity.ts';
import { OutboundEmail } from '../modules/email/outbound-email.entity.ts';
import { FeatureRequest, FeatureRequestVote } from '../modules/feature-requests/feature-request.entity.ts';
import { GuestInvitation, StoreGuest } from '../modules/guests/guest-invitation.entity.ts';
import { Session } from '../modules/sessions/session.entity.ts';
import { Store } from '../modules/stores/store.entity.ts';
import { Plan } from '../modules/subscriptions/plan.entity.ts';
import { Subscription } from '../modules/subscriptions/subscription.entity.ts';
import { ContactMessage } from '../modules/support/contact-message.entity.ts';
import { User } from '../modules/users/user.entity.ts';

export const entities = [
  User,
  Store,
  Plan,
  Subscription,
  Session,
  AuditLogEntry,
  PlatformConnection,
  PasswordResetToken,
  OutboundEmail,
  EmailTemplate,
  ContactMessage,
  FeatureRequest,
  FeatureRequestVote,
  GuestInvitation,
  StoreGuest,
];
