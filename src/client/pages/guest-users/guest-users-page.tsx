export function GuestUsersPage() {
  return null;
}
