import type { RouteObject } from "react-router";

export const peopleRoutes: RouteObject[] = [
  { path: "people", lazy: async () => ({ Component: (await import("./PeoplePage")).PeoplePage }) },
  { path: "people/users/:id", lazy: async () => ({ Component: (await import("./UserAccessPage")).UserAccessPage }) },
  { path: "applications/:rs/tools/:tool/callers", lazy: async () => ({ Component: (await import("./WhoCanCallPage")).WhoCanCallPage }) },
];

export const toUser = (id: string) => `/people/users/${id}`;
export const toCallers = (rs: string, tool: string) => `/applications/${rs}/tools/${tool}/callers`;
