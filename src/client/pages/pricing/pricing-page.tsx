export function PricingPage() {
  return null;
}
