export function ManageUsersPage() {
  return null;
}
