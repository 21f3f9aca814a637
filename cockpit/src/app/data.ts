// Data hooks (TanStack Query): every key starts with the workspace id, so switching workspaces
// never shows another workspace's rows and signing out drops exactly that workspace's cache; a
// mutation invalidates the keys of its feature. A refused session (401) signs out with the reason.
import { useMutation, useQuery, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { ApiError } from "../api/errors";
import { gql, type Document } from "../api/graphql";
import { rest } from "../api/rest";
import { useSession, useSignedIn } from "./session";

/** An error handler that signs out when the server says the session ended (401). */
export function useOnSignedOut() {
  const { signOut } = useSession();
  return (e: unknown) => {
    if (e instanceof ApiError && e.signedOut) signOut(`${e.message}. Sign in again.`);
  };
}

/** A GraphQL query under [workspace, ...key]. */
export function useGraph<T, V>(key: QueryKey, document: Document<T, V>, variables: V, opts: { enabled?: boolean } = {}) {
  const s = useSignedIn();
  const onError = useOnSignedOut();
  return useQuery({
    queryKey: [s.workspaceId, ...key, variables],
    queryFn: ({ signal }) => gql(s.token, document, variables, signal).catch((e) => (onError(e), Promise.reject(e))),
    enabled: opts.enabled ?? true,
  });
}

/** A REST read under [workspace, ...key]. */
export function useRest<T>(key: QueryKey, path: string) {
  const s = useSignedIn();
  const onError = useOnSignedOut();
  return useQuery({
    queryKey: [s.workspaceId, ...key],
    queryFn: ({ signal }) => rest<T>("GET", path, { token: s.token, signal }).catch((e) => (onError(e), Promise.reject(e))),
  });
}

/** A GraphQL mutation; on success the listed keys (under this workspace) are read again. */
export function useGraphMutation<T, V>(document: Document<T, V>, invalidate: QueryKey[]) {
  const s = useSignedIn();
  const queries = useQueryClient();
  const onError = useOnSignedOut();
  return useMutation<T, ApiError, V>({
    mutationFn: (variables) => gql(s.token, document, variables),
    onSuccess: () => Promise.all(invalidate.map((k) => queries.invalidateQueries({ queryKey: [s.workspaceId, ...k] }))),
    onError,
  });
}

/** A REST write; on success the listed keys are read again. */
export function useRestMutation<T, V = unknown>(method: string, path: (v: V) => string, invalidate: QueryKey[], body: (v: V) => unknown = (v) => v) {
  const s = useSignedIn();
  const queries = useQueryClient();
  const onError = useOnSignedOut();
  return useMutation<T, ApiError, V>({
    mutationFn: (v) => rest<T>(method, path(v), { token: s.token, body: body(v) }),
    onSuccess: () => Promise.all(invalidate.map((k) => queries.invalidateQueries({ queryKey: [s.workspaceId, ...k] }))),
    onError,
  });
}
