export function HelpCenterPage() {
  return null;
}
