export function CheckoutPage(_props: { planId: string }) {
  return null;
}
