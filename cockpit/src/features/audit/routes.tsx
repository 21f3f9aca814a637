import type { RouteObject } from "react-router";

export const auditRoutes: RouteObject[] = [{ path: "audit", lazy: async () => ({ Component: (await import("./AuditPage")).AuditPage }) }];
