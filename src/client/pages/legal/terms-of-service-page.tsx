export function TermsOfServicePage() {
  return null;
}
