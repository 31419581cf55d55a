export function AcceptInvitePage() {
  return null;
}
