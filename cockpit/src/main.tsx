// The cockpit's entry: one QueryClient, the in-memory session, the routes under /cockpit.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter, RouterProvider } from "react-router";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ApiError } from "./api/errors";
import { SessionProvider } from "./app/session";
import { routes } from "./routes";
import "./styles.css";

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx, or a GraphQL error such as BAD_USER_INPUT) is an answer, not a network glitch: show it at once.
      retry: (count, e) => !(e instanceof ApiError && e.refusal) && count < 2,
      refetchOnWindowFocus: false,
      staleTime: 0,
    },
  },
});

const router = createBrowserRouter(routes, { basename: "/cockpit" });

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
