export function AdminAffiliatePage(_props: { userId: string }) {
  return null;
}
