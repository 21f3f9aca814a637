import type { RouteObject } from "react-router";

export const accessRequestRoutes: RouteObject[] = [{ path: "access-requests", lazy: async () => ({ Component: (await import("./AccessRequestsPage")).AccessRequestsPage }) }];
