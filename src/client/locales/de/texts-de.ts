// Every namespace of this language in one chunk, loaded only when the language is in use (see lib/i18n.ts; the file name names the chunk: texts-<language>-<hash>.js);
// the long help and legal texts and the tools' texts load apart, with their pages (lib/i18n.ts LONG_TEXT_NAMESPACES).
export default import.meta.glob<Record<string, unknown>>([
  './*.json',
  '!./help.json',
  '!./legal.json',
  '!./meta-comments.json',
  '!./product-images.json',
  '!./shopping-optimizer.json',
  '!./page-reviewer.json',
  '!./tracking-setup.json',
], { eager: true, import: 'default' });
