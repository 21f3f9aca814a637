// A tiny GraphQL-over-HTTP client for the tests: real fetch against the harness's server, typed by
// the documents GraphQL Code Generator writes to ./generated (npm run codegen).
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import type { Harness } from "../helpers/harness";

export interface GraphQLResponse<T> {
  status: number;
  headers: Headers;
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

export async function gql<T, V>(
  h: Harness,
  document: TypedDocumentNode<T, V> | string,
  variables?: V,
  opts: { token?: string | null; headers?: Record<string, string> } = {},
): Promise<GraphQLResponse<T>> {
  const token = opts.token === undefined ? h.adminToken : opts.token;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/graphql-response+json, application/json", ...opts.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  const query = typeof document === "string" ? document : print(document);
  const res = await fetch(`${h.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: T | null; errors?: GraphQLResponse<T>["errors"] };
  return { status: res.status, headers: res.headers, data: body.data, errors: body.errors };
}

/** The codes of a response's errors, for compact assertions. */
export const codesOf = (r: GraphQLResponse<unknown>) => (r.errors ?? []).map((e) => e.extensions?.code);
