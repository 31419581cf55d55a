import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const AUDIT_ACTIONS = [
  'guest_mode.enter',
  'guest_mode.exit',
  'subscription.grant',
  'password.changed',
  'password.reset',
  'guest.invited',
  'guest.removed',
  'email_template.updated',
  'email.change_requested',
  'email.changed',
  // Shopify's mandatory compliance webhooks (integrations/webhooks.ts): what was asked and done.
  'shopify.customer_data_request',
  'shopify.customer_redact',
  'shopify.shop_redact',
  // Account deletion (privacy/account-deletion.ts): scheduled by the user or an admin, cancelled, done.
  'account.deletion_scheduled',
  'account.deletion_cancelled',
  'account.deleted',
  // An administrator put a failed e-mail back on the delivery queue (email/email.router.ts, "Retry delivery").
  'email.retry_delivery',
  // The affiliate programme's admin decisions (affiliates/affiliate-admin.service.ts), about the affiliate's account.
  'affiliate.override_changed',
  'affiliate.payout_approved',
  'affiliate.payout_rejected',
  'affiliate.payout_paid',
] as const;

export const AuditLogEntry = defineEntity({
  name: 'AuditLogEntry',
  tableName: 'audit_log_entries',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    /** Plain ids, not foreign keys: the record must outlive the accounts it names. */
    actorUserId: p.integer().nullable(),
    targetUserId: p.integer().nullable(),
    action: p.enum(AUDIT_ACTIONS),
    details: p.json<Record<string, unknown>>().nullable(),
    ipAddress: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['actorUserId', 'createdAt'] }, { properties: ['targetUserId', 'createdAt'] }],
});

export type AuditLogEntryEntity = InferEntity<typeof AuditLogEntry>;
