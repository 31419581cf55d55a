import { LegalDocument } from './legal-document.tsx';

/** /terms-of-service: public, no sign-in needed. */
export function TermsOfServicePage() {
  return <LegalDocument document="terms" />;
}
