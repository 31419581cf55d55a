import type { AnomalyRecommendationCode } from './anomalies.ts';
import { ANOMALY_LANGUAGES, type AnomalyLanguage } from './anomaly-figures.ts';

// The one source of the anomaly recommendations' sentences (README, "Anomaly insights"): a code and
// its params → a sentence in each language. The dashboard's panel, GET /api/anomalies, the alert
// e-mails and the Explain prompt all read them here. Typed by code, so a code the detection gives
// without a sentence (or a sentence for a code it never gives) does not compile. No zod here: the
// dashboard's first load imports this file.

type Sentences = Record<AnomalyRecommendationCode | 'generic', string>;

/** `{{scope}}` is the scope's name; `{{change}}` the percent change as the code's rule writes it (detect.ts, changeParam). */
const SENTENCES: Record<AnomalyLanguage, Sentences> = {
  en: {
    check_bids_budget: "Spend on {{scope}} is up without a matching rise in return: check its bids and budget.",
    check_tracking_landing: "Spend on {{scope}} continues but its orders or conversions dropped ({{change}}%): check its tracking and landing page.",
    check_pixel_installation: "Pixel purchases differ from the shop's orders by {{change}}%: check the tracking pixel on the checkout and thank-you pages.",
    check_refund_reasons: "Refunds rose by {{change}}%: check the refund reasons and the products or orders behind them.",
    check_checkout_stock: "{{scope}} fell by {{change}}%: check that the shop, the checkout and the stock of best sellers work.",
    find_growth_source: "{{scope}} rose by {{change}}%: find the source (campaign, product, mention) and make the most of it.",
    check_discounts_pricing: "The average order value of {{scope}} changed by {{change}}%: check discounts, prices and bundles.",
    review_targeting_creatives: "The return on ad spend of {{scope}} fell by {{change}}% without more spend: review its targeting and creatives.",
    review_acquisition_costs: "The cost per new customer of {{scope}} rose by {{change}}%: review which campaigns bring new customers.",
    check_spend_pacing: "Marketing spend of {{scope}} changed by {{change}}%: check budgets and pacing against your plan.",
    review_customer_mix: "The share of new customers of {{scope}} changed by {{change}}%: check acquisition campaigns and retention e-mails.",
    generic: "Look at what changed for {{scope}} on this day: campaigns, prices, stock, the site and tracking.",
  },
  es: {
    check_bids_budget: "La inversión en {{scope}} ha subido sin que su retorno suba con ella: revisa sus pujas y su presupuesto.",
    check_tracking_landing: "La inversión en {{scope}} continúa pero sus pedidos o conversiones cayeron ({{change}} %): revisa su seguimiento y su página de destino.",
    check_pixel_installation: "Las compras del píxel difieren de los pedidos de la tienda en un {{change}} %: revisa el píxel en el pago y la página de agradecimiento.",
    check_refund_reasons: "Los reembolsos subieron un {{change}} %: revisa los motivos y los productos o pedidos que hay detrás.",
    check_checkout_stock: "{{scope}} bajó un {{change}} %: comprueba que la tienda, el pago y el stock de los más vendidos funcionan.",
    find_growth_source: "{{scope}} subió un {{change}} %: busca el origen (campaña, producto, mención) y aprovéchalo.",
    check_discounts_pricing: "El valor medio del pedido de {{scope}} cambió un {{change}} %: revisa descuentos, precios y packs.",
    review_targeting_creatives: "El retorno de la inversión publicitaria de {{scope}} bajó un {{change}} % sin más inversión: revisa su segmentación y sus creatividades.",
    review_acquisition_costs: "El coste por cliente nuevo de {{scope}} subió un {{change}} %: revisa qué campañas traen clientes nuevos.",
    check_spend_pacing: "La inversión en marketing de {{scope}} cambió un {{change}} %: compara presupuestos y ritmo de gasto con tu plan.",
    review_customer_mix: "La proporción de clientes nuevos de {{scope}} cambió un {{change}} %: revisa las campañas de captación y los e-mails de fidelización.",
    generic: "Revisa qué cambió en {{scope}} ese día: campañas, precios, stock, la web y el seguimiento.",
  },
  fr: {
    check_bids_budget: "Les dépenses sur {{scope}} augmentent sans que leur rendement suive : vérifiez ses enchères et son budget.",
    check_tracking_landing: "Les dépenses sur {{scope}} continuent mais ses commandes ou conversions ont chuté ({{change}} %) : vérifiez son suivi et sa page de destination.",
    check_pixel_installation: "Les achats du pixel diffèrent des commandes de la boutique de {{change}} % : vérifiez le pixel sur le paiement et la page de remerciement.",
    check_refund_reasons: "Les remboursements ont augmenté de {{change}} % : vérifiez leurs motifs et les produits ou commandes concernés.",
    check_checkout_stock: "{{scope}} a baissé de {{change}} % : vérifiez que la boutique, le paiement et le stock des meilleures ventes fonctionnent.",
    find_growth_source: "{{scope}} a augmenté de {{change}} % : trouvez la source (campagne, produit, mention) et tirez-en parti.",
    check_discounts_pricing: "Le panier moyen de {{scope}} a changé de {{change}} % : vérifiez remises, prix et lots.",
    review_targeting_creatives: "Le retour sur dépenses publicitaires de {{scope}} a baissé de {{change}} % sans hausse des dépenses : revoyez son ciblage et ses créations.",
    review_acquisition_costs: "Le coût par nouveau client de {{scope}} a augmenté de {{change}} % : vérifiez quelles campagnes amènent de nouveaux clients.",
    check_spend_pacing: "Les dépenses marketing de {{scope}} ont changé de {{change}} % : comparez budgets et rythme de dépense à votre plan.",
    review_customer_mix: "La part de nouveaux clients de {{scope}} a changé de {{change}} % : vérifiez les campagnes d'acquisition et les e-mails de fidélisation.",
    generic: "Regardez ce qui a changé pour {{scope}} ce jour-là : campagnes, prix, stock, site et suivi.",
  },
  de: {
    check_bids_budget: "Die Ausgaben für {{scope}} steigen, ohne dass der Ertrag mitwächst: Prüfen Sie Gebote und Budget.",
    check_tracking_landing: "Die Ausgaben für {{scope}} laufen weiter, aber Bestellungen oder Conversions sind eingebrochen ({{change}} %): Prüfen Sie Tracking und Landingpage.",
    check_pixel_installation: "Pixel-Käufe weichen um {{change}} % von den Bestellungen des Shops ab: Prüfen Sie das Tracking-Pixel im Checkout und auf der Danke-Seite.",
    check_refund_reasons: "Die Erstattungen sind um {{change}} % gestiegen: Prüfen Sie die Erstattungsgründe und die betroffenen Produkte oder Bestellungen.",
    check_checkout_stock: "{{scope}} ist um {{change}} % gefallen: Prüfen Sie, ob Shop, Checkout und der Bestand der Bestseller funktionieren.",
    find_growth_source: "{{scope}} ist um {{change}} % gestiegen: Finden Sie die Quelle (Kampagne, Produkt, Erwähnung) und nutzen Sie sie.",
    check_discounts_pricing: "Der durchschnittliche Bestellwert von {{scope}} hat sich um {{change}} % verändert: Prüfen Sie Rabatte, Preise und Bundles.",
    review_targeting_creatives: "Der ROAS von {{scope}} ist ohne höhere Ausgaben um {{change}} % gefallen: Überprüfen Sie Targeting und Anzeigenmotive.",
    review_acquisition_costs: "Die Kosten pro Neukunde von {{scope}} sind um {{change}} % gestiegen: Prüfen Sie, welche Kampagnen Neukunden bringen.",
    check_spend_pacing: "Die Marketingausgaben von {{scope}} haben sich um {{change}} % verändert: Gleichen Sie Budgets und Ausgabentempo mit Ihrem Plan ab.",
    review_customer_mix: "Der Anteil der Neukunden von {{scope}} hat sich um {{change}} % verändert: Prüfen Sie Akquisekampagnen und Bindungs-E-Mails.",
    generic: "Prüfen Sie, was sich an diesem Tag bei {{scope}} geändert hat: Kampagnen, Preise, Bestand, Website und Tracking.",
  },
};

/** The first supported language of a language tag, a list of them or an Accept-Language header (es-ES → es), else English. */
export function anomalyLanguageOf(requested: string | undefined | null): AnomalyLanguage {
  for (const part of (requested ?? '').split(',')) {
    const code = part.split(';')[0]!.trim().slice(0, 2).toLowerCase();
    if ((ANOMALY_LANGUAGES as readonly string[]).includes(code)) return code as AnomalyLanguage;
  }
  return 'en';
}

/** The recommendation as a sentence; a code this build does not know (added later by the detection) reads as the generic sentence. */
export function recommendationSentence(
  recommendation: { code: string; params: Record<string, string | number> },
  scopeLabel: string,
  language: AnomalyLanguage,
): string {
  const sentences = SENTENCES[language] ?? SENTENCES.en;
  const template = (sentences as Record<string, string>)[recommendation.code] ?? sentences.generic;
  const params: Record<string, string | number> = { ...recommendation.params, scope: scopeLabel };
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
