import type { RouteObject } from "react-router";

export const signInRoutes: RouteObject[] = [{ path: "/signin", lazy: async () => ({ Component: (await import("./SignInPage")).SignInPage }) }];
