import { createContext, useContext, type ReactNode } from 'react';
import { SessionContext, useSessionQuery, type CurrentUser, type SessionState } from './session.ts';

export interface AuthContextValue {
  /** Unknown (loading), signed in, signed out, or the check failed. */
  session: SessionState;
  /** The signed-in account (in guest mode still the admin's own), or null. */
  user: CurrentUser | null;
}

const AuthContext = createContext<AuthContextValue | null>(null);

/** Runs the "who is signed in" query once for the whole app (GET /api/user, through tRPC). */
export function AuthProvider({ children }: { children: ReactNode }) {
  const session = useSessionQuery();
  const user = session.status === 'signedIn' ? session.user : null;
  return (
    <SessionContext.Provider value={session}>
      <AuthContext.Provider value={{ session, user }}>{children}</AuthContext.Provider>
    </SessionContext.Provider>
  );
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used within an AuthProvider');
  return value;
}
