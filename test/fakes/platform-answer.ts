import { platformResponse, type PlatformResponse } from '../../src/server/connectors/http.ts';

/** A made-up platform answer for testing a connector's classifier: a JSON body (or text as it is). */
export function platformAnswer(status: number, body: unknown, headers: Record<string, string> = {}): PlatformResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return platformResponse('test', status, new Headers(headers), Buffer.from(text, 'utf8'));
}
