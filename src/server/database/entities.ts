import { AccountExport } from '../modules/privacy/account-export.entity.ts';
import { PrivacyRequest } from '../modules/privacy/privacy-request.entity.ts';
import { AudiencePush } from '../modules/audiences/audience-push.entity.ts';
import { PageReview } from '../modules/page-reviewer/page-review.entity.ts';
import { PriceAlertRecord, PriceCheck, PriceTrackedUrl } from '../modules/price-tracker/price-tracker.entities.ts';
import { MetaComment, MetaCommentSettings, MetaReplyTemplate, MetaWebhookDelivery } from '../modules/meta-comments/meta-comments.entities.ts';
import { ProductImage, ProductImageBatch, ProductImageRemoval, ProductImageSettings } from '../modules/product-images/product-images.entities.ts';
import { ShoppingFeedOverride, ShoppingFeedSettings, ShoppingPageCheck } from '../modules/shopping-optimizer/shopping-optimizer.entities.ts';
import { AuditLogEntry } from '../modules/admin/audit-log.entity.ts';
import { AttemptLimitCounter } from '../modules/auth/attempt-limit.entity.ts';
import { PasswordResetToken } from '../modules/auth/password-reset-token.entity.ts';
import { Anomaly, AnomalyCheck } from '../modules/anomalies/anomaly.entity.ts';
import { AdMetricDaily } from '../modules/commerce/ad-metric.entity.ts';
import { ProductAdMetricDaily } from '../modules/commerce/product-ad-metric.entity.ts';
import { StoreCostSettings } from '../modules/commerce/cost-settings.entity.ts';
import { Customer } from '../modules/commerce/customer.entity.ts';
import { CustomerLoyalty, LoyaltyModelRow } from '../modules/loyalty/loyalty.entities.ts';
import { EmailMetricDaily } from '../modules/commerce/email-metric.entity.ts';
import { Expense } from '../modules/commerce/expense.entity.ts';
import { FxRate } from '../modules/commerce/fx-rate.entity.ts';
import { OrderLine } from '../modules/commerce/order-line.entity.ts';
import { Order } from '../modules/commerce/order.entity.ts';
import { Product } from '../modules/commerce/product.entity.ts';
import { Refund } from '../modules/commerce/refund.entity.ts';
import { ChannelDailyRollup, DailyRollup, ProductDailyRollup } from '../modules/commerce/rollup.entity.ts';
import { PlatformConnection } from '../modules/connections/platform-connection.entity.ts';
import { ConnectionAccount, OAuthState, ReconciliationResult, SyncRun, WebhookDelivery } from '../modules/integrations/integration.entities.ts';
import { EmailTemplate } from '../modules/email/email-template.entity.ts';
import { OutboundEmail } from '../modules/email/outbound-email.entity.ts';
import { FeatureRequest, FeatureRequestVote } from '../modules/feature-requests/feature-request.entity.ts';
import { GuestInvitation, StoreGuest } from '../modules/guests/guest-invitation.entity.ts';
import { SavedReport } from '../modules/reports/saved-report.entity.ts';
import { AppSetting } from '../modules/settings/app-setting.entity.ts';
import { EmailChangeRequest } from '../modules/settings/email-change-request.entity.ts';
import { Session } from '../modules/sessions/session.entity.ts';
import { StoreTimezoneChange } from '../modules/stores/store-timezone-change.entity.ts';
import { Store } from '../modules/stores/store.entity.ts';
import { Plan } from '../modules/subscriptions/plan.entity.ts';
import { Subscription } from '../modules/subscriptions/subscription.entity.ts';
import { Affiliate, AffiliateClick, AffiliateCommission, AffiliateFlag, AffiliatePayout, AffiliatePayoutItem, AffiliateReferral } from '../modules/affiliates/affiliate.entities.ts';
import { BillingCustomer, BillingInvoice, StripeEvent } from '../modules/subscriptions/billing.entities.ts';
import { ContactMessage } from '../modules/support/contact-message.entity.ts';
import { User } from '../modules/users/user.entity.ts';

export const entities = [
  User,
  Store,
  Plan,
  Subscription,
  BillingCustomer,
  BillingInvoice,
  StripeEvent,
  Affiliate,
  AffiliateClick,
  AffiliateReferral,
  AffiliateFlag,
  AffiliateCommission,
  AffiliatePayout,
  AffiliatePayoutItem,
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
  Product,
  Customer,
  Order,
  OrderLine,
  Refund,
  AdMetricDaily,
  ProductAdMetricDaily,
  EmailMetricDaily,
  Expense,
  StoreCostSettings,
  FxRate,
  DailyRollup,
  ChannelDailyRollup,
  ProductDailyRollup,
  Anomaly,
  AnomalyCheck,
  SavedReport,
  SyncRun,
  OAuthState,
  WebhookDelivery,
  ReconciliationResult,
  ConnectionAccount,
  StoreTimezoneChange,
  AttemptLimitCounter,
  AppSetting,
  EmailChangeRequest,
  AudiencePush,
  CustomerLoyalty,
  LoyaltyModelRow,
  PageReview,
  ShoppingFeedSettings,
  ProductImage,
  ProductImageBatch,
  ProductImageSettings,
  ProductImageRemoval,
  ShoppingFeedOverride,
  ShoppingPageCheck,
  MetaComment,
  MetaCommentSettings,
  MetaReplyTemplate,
  MetaWebhookDelivery,
  PriceTrackedUrl,
  PriceCheck,
  PriceAlertRecord,
  PrivacyRequest,
  AccountExport,
];
