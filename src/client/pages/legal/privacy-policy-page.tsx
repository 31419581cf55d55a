export function PrivacyPolicyPage() {
  return null;
}
