// StorePulse's pixel, served minified at GET /p.js (src/server/modules/tracking/pixel.ts builds it; a
// test keeps it at most 1,500 bytes gzipped). No dependencies, no import: one IIFE. Installed with
//   <script async src="https://<host>/p.js" data-store="<store key>"></script>
// and called through the global `sp`: sp('event', name, props), sp('identify', { email }),
// sp('consent', false | true). Calls made before it loads are queued by the optional stub
//   window.sp = window.sp || function () { (sp.q = sp.q || []).push(arguments) };
// Everything it does is wrapped so that a failure is silent and never blocks the page.
// README, "Tracking: the pixel", explains the cookie, consent and GPC choices.

type Props = Record<string, unknown>;
interface Queued {
  name: string;
  id: string;
  ts: number;
  url: string;
  ref: string;
  title: string;
  screen: string;
  lang: string;
  props?: Props;
}

((w: Window & { sp?: any }, d: Document) => {
  const script = d.currentScript as HTMLScriptElement | null;
  const key = script && script.getAttribute('data-store');
  if (!key) return;
  const n = navigator as Navigator & { globalPrivacyControl?: boolean };
  const COOKIE = '_sp_id';
  const endpoint = script!.getAttribute('data-endpoint') || new URL(script!.src).origin + '/p/e';
  const gpc = n.globalPrivacyControl ? 1 : 0;
  // Consent: on unless the tag says data-consent="denied", or GPC is on and the store honours it.
  let consent = script!.getAttribute('data-consent') != 'denied' && !(gpc && script!.getAttribute('data-gpc') != 'ignore');
  let queue: Queued[] = [];
  let timer: any = 0;
  let lastUrl = '';
  const random = () => {
    let id = '';
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) id += (byte & 63).toString(36);
    return id;
  };
  const readCookie = () => (d.cookie.match(/(?:^|; )_sp_id=([\w-]+)/) || [])[1];
  // The id cookie on the widest domain that takes it (www.shop.com and shop.com share it).
  const writeCookie = (value: string, age: number) => {
    const labels = location.hostname.split('.');
    for (let i = 2; i <= labels.length; i++) {
      d.cookie = COOKIE + '=' + value + ';path=/;max-age=' + age + ';SameSite=Lax' + (i < labels.length ? ';domain=' + labels.slice(-i).join('.') : '') + (location.protocol == 'https:' ? ';Secure' : '');
      if (age && readCookie() == value) return;
    }
  };
  const anonymousId = () => {
    if (!consent) return;
    let id = readCookie();
    if (!id) writeCookie((id = random()), 34560000);
    return id;
  };
  const flush = () => {
    clearTimeout(timer);
    timer = 0;
    while (queue.length) {
      const body = JSON.stringify({ key, aid: anonymousId(), consent: consent ? 1 : 0, gpc, wd: n.webdriver ? 1 : 0, now: Date.now(), events: queue.splice(0, 25) });
      try {
        n.sendBeacon(endpoint, body) || fetch(endpoint, { method: 'POST', body, keepalive: true, mode: 'no-cors' }).catch(() => 0);
      } catch (e) {}
    }
  };
  const track = (name: string, props?: Props, id?: string) => {
    queue.push({ name, id: id || random(), ts: Date.now(), url: location.href, ref: lastUrl || d.referrer, title: d.title, screen: screen.width + 'x' + screen.height, lang: n.language, props });
    lastUrl = location.href;
    if (queue.length > 9) flush();
    else timer = timer || setTimeout(flush, 3000);
  };
  const pageView = () => {
    if (location.href != lastUrl) track('page_view');
  };
  const api = (command: string, a?: any, b?: Props) => {
    try {
      if (command == 'event') track(a, b);
      else if (command == 'consent') {
        consent = a !== false;
        if (!consent) writeCookie('', 0);
      } else if (command == 'identify' && a && a.email && crypto.subtle) {
        crypto.subtle.digest('SHA-256', new TextEncoder().encode(String(a.email).trim().toLowerCase())).then((hash) => {
          let hex = '';
          for (const byte of new Uint8Array(hash)) hex += (byte + 256).toString(16).slice(1);
          track('identify', { email_hash: hex });
        });
      }
    } catch (e) {}
  };
  const waiting: IArguments[] = (w.sp && w.sp.q) || [];
  w.sp = api;
  for (const call of waiting) api.apply(null, call as any);
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = function (this: History) {
      const result = original.apply(this, arguments as any);
      setTimeout(pageView);
      return result;
    } as any;
  }
  w.addEventListener('popstate', pageView);
  w.addEventListener('pagehide', flush);
  d.addEventListener('visibilitychange', () => d.visibilityState == 'hidden' && flush());
  anonymousId();
  pageView();
})(window, document);
