// Every namespace of this language in one chunk, loaded only when the language is in use (see lib/i18n.ts; the file name names the chunk: texts-<language>-<hash>.js);
// the long help and legal texts load apart, with their pages.
export default import.meta.glob<Record<string, unknown>>(['./*.json', '!./help.json', '!./legal.json'], { eager: true, import: 'default' });
