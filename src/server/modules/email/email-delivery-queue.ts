/** The pg-boss queue of e-mail deliveries (one job per outbox row). */
export const EMAIL_DELIVER_QUEUE = 'email.deliver';
