import { escapeHtml } from '../../../shared/html.ts';
import { fillPlaceholders } from './email.service.ts';

// The HTML part of an e-mail, derived from the same (admin-editable) text template: the template's
// own text and every variable are HTML-escaped before anything else, then web addresses become links,
// blank lines paragraphs and single line breaks <br>. No template markup is ever trusted as HTML.


/** http(s) addresses in escaped text; a trailing full stop, comma or bracket ends the sentence, not the address. */
const ESCAPED_URL = /\bhttps?:\/\/[^\s<>"]+?(?=[.,;:!?)\]]*(?:\s|$))/g;

function linked(escapedLine: string): string {
  return escapedLine.replace(ESCAPED_URL, (url) => `<a href="${url}">${url}</a>`);
}

export function htmlFromText(template: string, variables: Record<string, string | number>): string {
  const escapedVariables = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, escapeHtml(String(value))]));
  const text = fillPlaceholders(escapeHtml(template), escapedVariables).replace(/\r\n/g, '\n').trim();
  const paragraphs = text
    .split(/\n{2,}/)
    .map((paragraph) => `<p style="margin:0 0 16px">${paragraph.split('\n').map(linked).join('<br>\n')}</p>`);
  return (
    '<!doctype html>\n<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>\n' +
    '<body style="margin:0;padding:24px;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#1f2937">\n' +
    `<div style="max-width:640px;margin:0 auto">\n${paragraphs.join('\n')}\n</div>\n</body></html>\n`
  );
}
