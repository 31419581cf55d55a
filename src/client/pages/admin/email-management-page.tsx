export function EmailManagementPage() {
  return null;
}
