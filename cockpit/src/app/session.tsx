// Who is signed in, kept in memory only (docs/decisions/0045-cockpit-auth.md): the admin JWT of
// each workspace signed in during this visit. A reload, a new tab or the token's expiry asks for
// the sign-in again; nothing secret is written to storage. What is remembered across visits is the
// list of workspaces (id and name) this browser signed in to, so the switcher can offer them.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { gql } from "../api/graphql";
import { WorkspaceDocument, type MembershipType } from "../graphql/generated/graphql";

export interface TokenAnswer {
  access_token: string;
  expires_in: number;
  /** An enrol-only token: the workspace requires a second factor this admin has not set up yet. */
  mfa_enrollment_required?: true;
}

export interface Session {
  token: string;
  workspaceId: string;
  workspaceName: string;
  userId: string;
  role: MembershipType | null;
  expiresAt: number;
  enrolOnly: boolean;
}

export interface KnownWorkspace {
  id: string;
  name: string;
}

interface SessionState {
  session: Session | null;
  /** Workspaces signed in to during this visit (switching is instant) or remembered from earlier ones. */
  workspaces: (KnownWorkspace & { signedIn: boolean })[];
  /** Why the last session ended, for the sign-in page. */
  endedBecause: string | null;
  begin(answer: TokenAnswer): Promise<Session>;
  switchTo(workspaceId: string): boolean;
  signOut(reason?: string): void;
}

const Ctx = createContext<SessionState | null>(null);
const REMEMBERED = "toolgate.cockpit.workspaces";

function remembered(): KnownWorkspace[] {
  try {
    const list = JSON.parse(localStorage.getItem(REMEMBERED) ?? "[]");
    return Array.isArray(list) ? list.filter((w) => typeof w?.id === "string" && typeof w?.name === "string") : [];
  } catch {
    return [];
  }
}

function remember(w: KnownWorkspace): KnownWorkspace[] {
  const list = [w, ...remembered().filter((x) => x.id !== w.id)].slice(0, 20);
  try {
    localStorage.setItem(REMEMBERED, JSON.stringify(list));
  } catch {
    // Storage refused (private mode): the switcher then offers this visit's workspaces only.
  }
  return list;
}

/** The JWT's claims, read (not verified: the server verifies every request). */
function claimsOf(token: string): Record<string, unknown> {
  const part = token.split(".")[1] ?? "";
  const json = atob(part.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(decodeURIComponent(escape(json)));
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queries = useQueryClient();
  const [held, setHeld] = useState<Map<string, Session>>(new Map());
  const [currentId, setCurrentId] = useState<string | null>(null);
  const [known, setKnown] = useState<KnownWorkspace[]>(remembered);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);
  const session = currentId ? (held.get(currentId) ?? null) : null;
  const heldRef = useRef(held);
  heldRef.current = held;

  const drop = useCallback(
    (workspaceId: string, reason?: string) => {
      setHeld((m) => {
        const next = new Map(m);
        next.delete(workspaceId);
        return next;
      });
      setCurrentId((id) => (id === workspaceId ? null : id));
      queries.removeQueries({ queryKey: [workspaceId] });
      setEndedBecause(reason ?? null);
    },
    [queries],
  );

  const begin = useCallback(async (answer: TokenAnswer): Promise<Session> => {
    const claims = claimsOf(answer.access_token);
    const workspaceId = String(claims.workspace_id ?? claims.tenant_id);
    const enrolOnly = answer.mfa_enrollment_required === true;
    let workspaceName = known.find((w) => w.id === workspaceId)?.name ?? "Workspace";
    let role: MembershipType | null = null;
    // An enrol-only token may enrol a factor and nothing else: the graph would refuse it.
    if (!enrolOnly) {
      const { workspace } = await gql(answer.access_token, WorkspaceDocument, {});
      workspaceName = workspace.name;
      role = workspace.viewerRole;
    }
    const s: Session = {
      token: answer.access_token,
      workspaceId,
      workspaceName,
      userId: String(claims.sub),
      role,
      expiresAt: typeof claims.exp === "number" ? claims.exp * 1000 : Date.now() + answer.expires_in * 1000,
      enrolOnly,
    };
    setHeld((m) => new Map(m).set(workspaceId, s));
    setCurrentId(workspaceId);
    setEndedBecause(null);
    if (!enrolOnly) setKnown(remember({ id: workspaceId, name: workspaceName }));
    return s;
  }, [known]);

  // A token ends at its expiry: sign out then, saying why.
  useEffect(() => {
    if (!session) return;
    const ms = session.expiresAt - Date.now();
    const t = setTimeout(() => drop(session.workspaceId, "Your sign-in expired. Sign in again."), Math.max(0, Math.min(ms, 2 ** 31 - 1)));
    return () => clearTimeout(t);
  }, [session, drop]);

  const value = useMemo<SessionState>(() => {
    const signedIn = [...held.values()].map((s) => ({ id: s.workspaceId, name: s.workspaceName, signedIn: true }));
    const others = known.filter((w) => !held.has(w.id)).map((w) => ({ ...w, signedIn: false }));
    return {
      session,
      workspaces: [...signedIn, ...others],
      endedBecause,
      begin,
      switchTo: (workspaceId) => {
        if (!heldRef.current.has(workspaceId)) return false;
        setCurrentId(workspaceId);
        return true;
      },
      signOut: (reason) => session && drop(session.workspaceId, reason),
    };
  }, [session, held, known, endedBecause, begin, drop]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(Ctx);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}

/** The signed-in session; only inside routes that require one (app/RequireSession). */
export function useSignedIn(): Session {
  const { session } = useSession();
  if (!session) throw new Error("no session");
  return session;
}

/** owner and admin may change things; readonly_auditor reads (the server decides either way). */
export const canWrite = (s: Session) => s.role === "owner" || s.role === "admin";
