import type { Connector, ConnectorContext } from '../connector.ts';
import { ConnectorAuthError, MalformedResponseError } from '../connector.ts';
import { windowDays } from '../email-shared/days.ts';
import { describeCsvErrors, EMAIL_CSV_PLATFORM, parseEmailCsv, type EmailCsvParseResult } from './csv.ts';

// The generic e-mail "platform": metrics imported from a CSV file (format in csv.ts) that the engine
// keeps, encrypted like credentials, as credentials.csvText with its credentials.fileName. A sync
// pages through the file's rows, 1,000 per batch; the cursor is the index of the next row. Only rows
// whose day falls in the window are returned.

export const EMAIL_CSV_BATCH_SIZE = 1000;

// Every batch of a sync reads the same file: parse it once, not once per 1,000 rows.
let lastParse: { text: string; defaultCurrency: string; result: EmailCsvParseResult; rowsInWindow: Map<string, number> } | null = null;

function parsedFile(ctx: ConnectorContext) {
  const text = ctx.credentials.csvText ?? '';
  const defaultCurrency = ctx.store.currency;
  if (lastParse?.text !== text || lastParse.defaultCurrency !== defaultCurrency) {
    lastParse = { text, defaultCurrency, result: parseEmailCsv(text, { defaultCurrency }), rowsInWindow: new Map() };
  }
  return lastParse;
}

function fileNameOf(ctx: ConnectorContext): string {
  return ctx.credentials.fileName?.trim() || 'uploaded file';
}

export const emailConnector: Connector = {
  platform: EMAIL_CSV_PLATFORM,
  kind: 'email',
  authKind: 'upload',
  credentialFields: ['fileName', 'csvText'],
  // Nothing to call: the data is the uploaded file.
  defaultBaseUrl: () => '',

  async verify(ctx) {
    const { result } = parsedFile(ctx);
    if (result.errorCount > 0) throw new ConnectorAuthError(EMAIL_CSV_PLATFORM, `"${fileNameOf(ctx)}" cannot be imported:\n${describeCsvErrors(result)}`);
    if (result.rows.length === 0) throw new ConnectorAuthError(EMAIL_CSV_PLATFORM, `"${fileNameOf(ctx)}" has a header but no rows.`);
    const currencies = new Set(result.rows.map((row) => row.currency));
    return { accountId: `upload:${fileNameOf(ctx)}`, accountName: fileNameOf(ctx), currency: currencies.size === 1 ? [...currencies][0] : undefined };
  },

  async fetchBatch(ctx, window, cursor) {
    const { result, rowsInWindow } = parsedFile(ctx);
    if (result.errorCount > 0) throw new MalformedResponseError(EMAIL_CSV_PLATFORM, describeCsvErrors(result));
    if (cursor !== null && !/^\d+$/.test(cursor)) throw new Error(`${EMAIL_CSV_PLATFORM}: the stored sync cursor "${cursor.slice(0, 20)}" is not a row index; restart the sync`);
    const start = cursor === null ? 0 : Number(cursor);
    const { firstDay, lastDay } = windowDays(window);
    const inWindow = (day: string) => day >= firstDay && day <= lastDay;
    const end = start + EMAIL_CSV_BATCH_SIZE;
    const emailMetrics = result.rows.slice(start, end).filter((row) => inWindow(row.day)).map(({ line: _line, ...row }) => row);
    const windowKey = `${firstDay}..${lastDay}`;
    if (!rowsInWindow.has(windowKey)) rowsInWindow.set(windowKey, result.rows.filter((row) => inWindow(row.day)).length);
    return { emailMetrics, nextCursor: end < result.rows.length ? String(end) : null, estimatedTotal: rowsInWindow.get(windowKey) };
  },
  // No sourceTotals: the file is the source.
};
