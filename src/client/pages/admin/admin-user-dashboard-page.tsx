export function AdminUserDashboardPage(_props: { userId: string }) {
  return null;
}
