import { describe, expect, it } from 'vitest';
import { isAllowedHost, requestOrigin } from './public-origin.ts';

describe('requestOrigin', () => {
  it('is the scheme and host the request was addressed to', () => {
    expect(requestOrigin({ protocol: 'http', host: 'localhost:3000' })).toBe('http://localhost:3000');
    expect(requestOrigin({ protocol: 'https', host: 'App.Example.com:443' })).toBe('https://app.example.com');
    expect(requestOrigin({ protocol: 'http', host: '[::1]:3001' })).toBe('http://[::1]:3001');
  });

  it('is null for a Host header that is not a bare host name', () => {
    for (const host of ['evil.test/reset', 'victim.example@evil.test', 'a b', 'evil.test?x=1', 'evil.test#x', '']) {
      expect(requestOrigin({ protocol: 'http', host }), host).toBeNull();
    }
  });
});

describe('isAllowedHost', () => {
  const allowed = ['app.example.com', '192.168.1.20:3000'];
  it('allows a listed name on any port, a listed name:port on that port only', () => {
    expect(isAllowedHost('app.example.com', allowed)).toBe(true);
    expect(isAllowedHost('APP.example.com:8443', allowed)).toBe(true);
    expect(isAllowedHost('192.168.1.20:3000', allowed)).toBe(true);
    expect(isAllowedHost('192.168.1.20:3001', allowed)).toBe(false);
    expect(isAllowedHost('192.168.1.20', allowed)).toBe(false);
  });

  it('refuses other names, look-alikes and malformed values', () => {
    for (const host of ['evil.test', 'app.example.com.evil.test', 'evilapp.example.com', 'app.example.com@evil.test', 'app.example.com/x']) {
      expect(isAllowedHost(host, allowed), host).toBe(false);
    }
  });
});
