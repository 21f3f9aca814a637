// Every route: the features' lists joined. A feature folder exports its routes (lazy-loaded, so a
// first visit downloads only the screen it opens); adding a feature is one import and one spread.
import { Navigate, type RouteObject } from "react-router";
import { RequireSession } from "./app/RequireSession";
import { signInRoutes } from "./features/signin/routes";
import { applicationRoutes } from "./features/applications/routes";
import { clientRoutes } from "./features/clients/routes";
import { peopleRoutes } from "./features/people/routes";
import { settingsRoutes } from "./features/settings/routes";
import { auditRoutes } from "./features/audit/routes";
import { accessRequestRoutes } from "./features/access-requests/routes";
import { explainRoutes } from "./features/explain/routes";
import { NotFound } from "./components/NotFound";

export const routes: RouteObject[] = [
  ...signInRoutes,
  {
    element: <RequireSession />,
    children: [{ index: true, element: <Navigate to="/applications" replace /> }, ...applicationRoutes, ...clientRoutes, ...accessRequestRoutes, ...peopleRoutes, ...auditRoutes, ...explainRoutes, ...settingsRoutes, { path: "*", element: <NotFound /> }],
  },
];
