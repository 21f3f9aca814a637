// Screens behind sign-in: without a session, the sign-in page (then back here). An enrol-only
// session (the workspace requires a second factor this admin lacks) reaches Settings only.
import { Navigate, useLocation } from "react-router";
import { useSession } from "./session";
import { Layout } from "../components/Layout";

export function RequireSession() {
  const { session } = useSession();
  const here = useLocation();
  if (!session) return <Navigate to={`/signin?next=${encodeURIComponent(here.pathname + here.search)}`} replace />;
  if (session.enrolOnly && !here.pathname.startsWith("/settings")) return <Navigate to="/settings" replace />;
  return <Layout />;
}
