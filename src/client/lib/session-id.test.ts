import { describe, expect, it } from 'vitest';
import { analyticsSessionId } from './session-id.ts';

describe('analyticsSessionId', () => {
  it('takes the analytics.sid cookie up to its first dot', () => {
    expect(analyticsSessionId(7, 'theme=dark; analytics.sid=abc123.signature.more; other=1')).toBe('abc123');
    expect(analyticsSessionId(7, 'analytics.sid=plain')).toBe('plain');
  });

  it('decodes a URL-encoded cookie value', () => {
    expect(analyticsSessionId(7, 'analytics.sid=s%3Aabc.sig')).toBe('s:abc');
  });

  it('falls back to the user id when the cookie is absent or empty (it is HttpOnly in practice)', () => {
    expect(analyticsSessionId(42, 'theme=dark')).toBe('42');
    expect(analyticsSessionId(42, 'analytics.sid=')).toBe('42');
    expect(analyticsSessionId(42, 'analytics.sid=.sig')).toBe('42');
    expect(analyticsSessionId(42, '')).toBe('42');
  });

  it('is null with neither a cookie nor a user', () => {
    expect(analyticsSessionId(null, '')).toBeNull();
  });

  it('ignores cookies whose name only looks alike', () => {
    expect(analyticsSessionId(5, 'xanalytics.sid=zzz; analytics.sidx=yyy')).toBe('5');
  });
});
