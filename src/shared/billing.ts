import { z } from 'zod';

/** Stripe's invoice statuses (https://docs.stripe.com/api/invoices/object#invoice_object-status). */
export const BILLING_INVOICE_STATUSES = ['draft', 'open', 'paid', 'uncollectible', 'void'] as const;
export const BILLING_INTERVALS = ['month', 'year'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];
export const billingIntervalSchema = z.enum(BILLING_INTERVALS);

/** Days a past_due subscription keeps access while Stripe retries the payment. */
export const PAYMENT_GRACE_DAYS = 7;

export const billingInvoiceOutput = z.object({
  id: z.number().int(),
  status: z.enum(BILLING_INVOICE_STATUSES),
  currency: z.string(),
  amountDueMinor: z.number().int(),
  amountPaidMinor: z.number().int(),
  amountRefundedMinor: z.number().int(),
  disputed: z.boolean(),
  hostedInvoiceUrl: z.string().nullable(),
  invoicePdf: z.string().nullable(),
  periodStart: z.string(),
  periodEnd: z.string(),
  paidAt: z.string().nullable(),
});
export type BillingInvoice = z.infer<typeof billingInvoiceOutput>;
