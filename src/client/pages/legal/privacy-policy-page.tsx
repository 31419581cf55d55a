import { LegalDocument } from './legal-document.tsx';

/** /privacy-policy: public, no sign-in needed. */
export function PrivacyPolicyPage() {
  return <LegalDocument document="privacy" />;
}
