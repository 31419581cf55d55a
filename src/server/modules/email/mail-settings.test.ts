import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { mailSettingsFrom } from './mail-settings.ts';

describe('SMTP_URL and MAIL_FROM', () => {
  it('reads smtp:// (STARTTLS when offered, port 587) and smtps:// (implicit TLS, port 465) with the credentials decoded', () => {
    expect(mailSettingsFrom('smtp://apikey:p%40ss%3Aword@mail.example.com', 'StorePulse <reports@example.com>')).toEqual({
      host: 'mail.example.com', port: 587, secure: false, auth: { user: 'apikey', pass: 'p@ss:word' }, from: 'StorePulse <reports@example.com>', rejectUnauthorized: true,
    });
    expect(mailSettingsFrom('smtps://mail.example.com', 'reports@example.com', false)).toMatchObject({ port: 465, secure: true, auth: null, rejectUnauthorized: false });
    expect(mailSettingsFrom('smtp://u:p@127.0.0.1:2525', 'a@b.co')).toMatchObject({ host: '127.0.0.1', port: 2525 });
    expect(mailSettingsFrom(undefined, undefined)).toBeNull();
  });

  it('refuses what it cannot use with a message naming the setting', () => {
    const config = (env: Record<string, string>) => () => loadConfig({ NODE_ENV: 'test', ...env });
    expect(config({ SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'a@b.co' })).toThrow('Invalid environment: SMTP_URL must look like smtp://user:password@mail.example.com:587');
    expect(config({ SMTP_URL: 'not a url', MAIL_FROM: 'a@b.co' })).toThrow(/SMTP_URL must look like/);
    expect(config({ SMTP_URL: 'smtp://user@mail.example.com', MAIL_FROM: 'a@b.co' })).toThrow('SMTP_URL must carry both a user name and a password, or neither');
    expect(config({ SMTP_URL: 'smtp://mail.example.com' })).toThrow('MAIL_FROM is required with SMTP_URL');
    expect(config({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'StorePulse' })).toThrow('MAIL_FROM must be an e-mail address');
    expect(config({ MAIL_FROM: 'a@b.co' })).toThrow('MAIL_FROM is set but SMTP_URL is not');
    expect(config({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'a@b.co', SMTP_TLS_REJECT_UNAUTHORIZED: 'maybe' })).toThrow('SMTP_TLS_REJECT_UNAUTHORIZED must be true or false');
    expect(loadConfig({ NODE_ENV: 'test' }).mail).toBeNull();
  });
});
