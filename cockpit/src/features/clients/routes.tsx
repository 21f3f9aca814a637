import type { RouteObject } from "react-router";

export const clientRoutes: RouteObject[] = [{ path: "clients", lazy: async () => ({ Component: (await import("./ClientsPage")).ClientsPage }) }];
