import type { FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { escapeHtml } from '../../../shared/html.ts';
import { unsubscribe, UNSUBSCRIBE_PATH, verifyUnsubscribeToken, type UnsubscribeTarget } from './unsubscribe.ts';

// The List-Unsubscribe address. GET (a person following the link, or a link scanner) only asks for a
// confirmation; POST unsubscribes: the confirmation form, and mail clients' one-click requests
// (RFC 8058: body "List-Unsubscribe=One-Click"). No session needed: the signed token is the permission.

type Language = 'en' | 'es' | 'fr' | 'de';

const TEXTS: Record<Language, { title: string; report: string; marketing: string; anomalyAlerts: string; priceAlerts: string; commentComplaints: string; confirm: string; done: string; invalid: string; preferences: string }> = {
  en: {
    title: 'Unsubscribe',
    report: 'Stop sending the scheduled report to {email}?',
    marketing: 'Stop sending product news to this account?',
    anomalyAlerts: 'Stop the anomaly alert e-mails of this store?',
    priceAlerts: 'Stop the competitor price alert e-mails of this store?',
    commentComplaints: 'Stop the e-mails about new complaints in the comments of this store?',
    confirm: 'Unsubscribe',
    done: 'You are unsubscribed. You will not receive these e-mails any more.',
    invalid: 'This unsubscribe link is not valid. Open the link from the latest e-mail, or change your e-mail preferences in StorePulse.',
    preferences: 'E-mail preferences in StorePulse',
  },
  es: {
    title: 'Darse de baja',
    report: '¿Dejar de enviar el informe programado a {email}?',
    marketing: '¿Dejar de enviar novedades del producto a esta cuenta?',
    anomalyAlerts: '¿Dejar de recibir los correos de alertas de anomalías de esta tienda?',
    priceAlerts: '¿Dejar de recibir los correos de alertas de precios de la competencia de esta tienda?',
    commentComplaints: '¿Dejar de recibir los correos sobre nuevas quejas en los comentarios de esta tienda?',
    confirm: 'Darse de baja',
    done: 'Te has dado de baja. Ya no recibirás estos correos.',
    invalid: 'Este enlace para darse de baja no es válido. Abre el enlace del correo más reciente o cambia tus preferencias de correo en StorePulse.',
    preferences: 'Preferencias de correo en StorePulse',
  },
  fr: {
    title: 'Se désabonner',
    report: 'Ne plus envoyer le rapport programmé à {email} ?',
    marketing: 'Ne plus envoyer les nouveautés du produit à ce compte ?',
    anomalyAlerts: 'Ne plus recevoir les e-mails d’alerte d’anomalies de cette boutique ?',
    priceAlerts: 'Ne plus recevoir les e-mails d’alerte de prix des concurrents de cette boutique ?',
    commentComplaints: 'Ne plus recevoir les e-mails sur les nouvelles réclamations dans les commentaires de cette boutique ?',
    confirm: 'Se désabonner',
    done: 'Vous êtes désabonné. Vous ne recevrez plus ces e-mails.',
    invalid: 'Ce lien de désabonnement n’est pas valide. Ouvrez le lien du dernier e-mail, ou modifiez vos préférences d’e-mail dans StorePulse.',
    preferences: 'Préférences d’e-mail dans StorePulse',
  },
  de: {
    title: 'Abmelden',
    report: 'Den geplanten Bericht nicht mehr an {email} senden?',
    marketing: 'Keine Produktneuigkeiten mehr an dieses Konto senden?',
    anomalyAlerts: 'Keine E-Mails zu Anomalie-Warnungen dieses Shops mehr erhalten?',
    priceAlerts: 'Keine E-Mails zu Preiswarnungen der Konkurrenz für diesen Shop mehr erhalten?',
    commentComplaints: 'Keine E-Mails zu neuen Beschwerden in den Kommentaren dieses Shops mehr erhalten?',
    confirm: 'Abmelden',
    done: 'Sie sind abgemeldet. Sie erhalten diese E-Mails nicht mehr.',
    invalid: 'Dieser Abmeldelink ist ungültig. Öffnen Sie den Link aus der neuesten E-Mail oder ändern Sie Ihre E-Mail-Einstellungen in StorePulse.',
    preferences: 'E-Mail-Einstellungen in StorePulse',
  },
};

function languageOf(acceptLanguage: string | undefined): Language {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const code = part.trim().slice(0, 2).toLowerCase();
    if (code === 'en' || code === 'es' || code === 'fr' || code === 'de') return code;
  }
  return 'en';
}

// The app's own colours (client/styles.css: orange-700 on light, orange-500 on dark), following the reader's system theme.
const PAGE_STYLE =
  ':root{color-scheme:light dark;--bg:#f5f5f4;--card:#fff;--text:#1c1917;--muted:#57534e;--line:#e7e5e4;--primary:oklch(55.3% .195 38.402);--on-primary:#fff}' +
  '@media (prefers-color-scheme:dark){:root{--bg:#0c0a09;--card:#1c1917;--text:#f5f5f4;--muted:#a8a29e;--line:#292524;--primary:oklch(70.5% .213 47.604);--on-primary:oklch(26.6% .079 36.259)}}' +
  'body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,sans-serif;display:flex;align-items:flex-start;justify-content:center}' +
  'main{box-sizing:border-box;width:100%;max-width:30rem;margin:4rem 1rem;padding:2rem;background:var(--card);border:1px solid var(--line);border-radius:1rem}' +
  '.brand{margin:0 0 1.5rem;font-weight:700;color:var(--primary)}h1{margin:0 0 .5rem;font-size:1.5rem}p{margin:0 0 1.5rem}' +
  'button{padding:.625rem 1.25rem;font:inherit;font-weight:600;border:0;border-radius:.5rem;background:var(--primary);color:var(--on-primary);cursor:pointer}' +
  'button:focus-visible,a:focus-visible{outline:2px solid var(--primary);outline-offset:2px}a{color:var(--primary)}.back{margin:0;font-size:.875rem;color:var(--muted)}';

function page(language: Language, body: string): string {
  const texts = TEXTS[language];
  return (
    `<!doctype html><html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(texts.title)} · StorePulse</title><style>${PAGE_STYLE}</style></head>` +
    `<body><main><p class="brand">StorePulse</p>${body}<p class="back"><a href="/settings">${escapeHtml(texts.preferences)}</a></p></main></body></html>`
  );
}

function question(language: Language, target: UnsubscribeTarget): string {
  const texts = TEXTS[language];
  switch (target.kind) {
    case 'report':
      return texts.report.replace('{email}', target.email);
    case 'marketing':
      return texts.marketing;
    case 'anomaly_alerts':
      return texts.anomalyAlerts;
    case 'price_alerts':
      return texts.priceAlerts;
    case 'comment_complaints':
      return texts.commentComplaints;
  }
}

export async function unsubscribeRoutes(app: FastifyInstance, options: { orm: MikroORM }): Promise<void> {
  // Forms and one-click requests are form-encoded; only the token in the address matters.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, body));

  app.get<{ Querystring: { token?: string } }>(UNSUBSCRIBE_PATH, async (request, reply) => {
    const language = languageOf(request.headers['accept-language']);
    const target = verifyUnsubscribeToken(request.query.token ?? '');
    reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8');
    if (!target) return reply.code(400).send(page(language, `<p data-testid="unsubscribe-invalid">${escapeHtml(TEXTS[language].invalid)}</p>`));
    const action = `${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(request.query.token!)}`;
    return reply.send(
      page(
        language,
        `<h1>${escapeHtml(TEXTS[language].title)}</h1><p data-testid="unsubscribe-question">${escapeHtml(question(language, target))}</p>` +
          `<form method="post" action="${escapeHtml(action)}" style="margin:0 0 1.5rem"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
          `<button type="submit">${escapeHtml(TEXTS[language].confirm)}</button></form>`,
      ),
    );
  });

  app.post<{ Querystring: { token?: string } }>(UNSUBSCRIBE_PATH, async (request, reply) => {
    const language = languageOf(request.headers['accept-language']);
    const target = verifyUnsubscribeToken(request.query.token ?? '');
    reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8');
    if (!target) return reply.code(400).send(page(language, `<p data-testid="unsubscribe-invalid">${escapeHtml(TEXTS[language].invalid)}</p>`));
    await unsubscribe(options.orm.em.fork(), target);
    return reply.send(page(language, `<p data-testid="unsubscribe-done">${escapeHtml(TEXTS[language].done)}</p>`));
  });
}
