import type { RouteObject } from "react-router";

export const applicationRoutes: RouteObject[] = [
  { path: "applications", lazy: async () => ({ Component: (await import("./ApplicationsPage")).ApplicationsPage }) },
  { path: "applications/:id", lazy: async () => ({ Component: (await import("../application/ApplicationPage")).ApplicationPage }) },
];

export const toApplication = (id: string, section?: string) => `/applications/${id}${section ? `#${section}` : ""}`;
