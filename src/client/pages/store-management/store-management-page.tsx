export function StoreManagementPage() {
  return null;
}
