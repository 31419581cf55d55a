import { z } from 'zod';

// Outgoing mail: SMTP_URL names the server (smtp:// upgrades with STARTTLS whenever the server offers
// it, smtps:// speaks TLS from the first byte), MAIL_FROM the sender. Read once at start (config.ts);
// the app hands the result to configureMail, the delivery job reads it from there.

export interface MailSettings {
  host: string;
  port: number;
  /** smtps://: implicit TLS. smtp://: plain connection, upgraded with STARTTLS when offered. */
  secure: boolean;
  auth: { user: string; pass: string } | null;
  from: string;
  /** false only for test peers with self-signed certificates (SMTP_TLS_REJECT_UNAUTHORIZED=false). */
  rejectUnauthorized: boolean;
}

const SMTP_URL_MESSAGE = 'SMTP_URL must look like smtp://user:password@mail.example.com:587 or smtps://user:password@mail.example.com:465';
const MAIL_FROM_MESSAGE = 'MAIL_FROM must be an e-mail address, optionally with a name: StorePulse <reports@example.com>';

/** `address@domain` or `Name <address@domain>`. */
const MAIL_FROM_PATTERN = /^(?:[^<>\r\n]*<\s*[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+\s*>|[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)$/;

/** null when SMTP_URL is unset (mail stays in the outbox); throws a message naming the setting at fault. */
export function mailSettingsFrom(smtpUrl: string | undefined, mailFrom: string | undefined, rejectUnauthorized = true): MailSettings | null {
  if (!smtpUrl) {
    if (mailFrom) throw new Error('MAIL_FROM is set but SMTP_URL is not: set SMTP_URL to send e-mail, or remove MAIL_FROM');
    return null;
  }
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error(SMTP_URL_MESSAGE);
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname || (url.pathname && url.pathname !== '/')) throw new Error(SMTP_URL_MESSAGE);
  if (Boolean(url.username) !== Boolean(url.password)) throw new Error('SMTP_URL must carry both a user name and a password, or neither (smtp://user:password@host:587)');
  if (!mailFrom) throw new Error('MAIL_FROM is required with SMTP_URL: the sender address, e.g. StorePulse <reports@example.com>');
  if (!MAIL_FROM_PATTERN.test(mailFrom) || !z.email().safeParse(mailFrom.replace(/^.*<\s*|\s*>$/g, '')).success) throw new Error(MAIL_FROM_MESSAGE);
  const secure = url.protocol === 'smtps:';
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : null,
    from: mailFrom,
    rejectUnauthorized,
  };
}

let configured: MailSettings | null = null;

/** The app sets it at start (null: no SMTP); tests set their own peer. */
export function configureMail(settings: MailSettings | null): void {
  configured = settings;
}

export function mailSettings(): MailSettings | null {
  return configured;
}
