import type { RouteObject } from "react-router";

export const explainRoutes: RouteObject[] = [{ path: "explain", lazy: async () => ({ Component: (await import("./ExplainPage")).ExplainPage }) }];

/** The Explain screen with its inputs filled in (the simulation runs on arrival). */
export const toExplain = (p: { app: string; user?: string; tool?: string; client?: string }) =>
  `/explain?${new URLSearchParams(Object.entries(p).filter((e): e is [string, string] => Boolean(e[1]))).toString()}`;
