// The cockpit's GraphQL client: typed documents from codegen.ts (cockpit/src/graphql/generated),
// sent to /graphql on this origin with the admin JWT held in memory (docs/decisions/0045-cockpit-auth.md).
// Like test/graphql/client.ts `gql()`, plus errors as ApiError (extensions.code, the message as sent).
import type { DocumentTypeDecoration } from "@graphql-typed-document-node/core";
import { ApiError } from "./errors";

/** A generated document (codegen's documentMode "string"): its text, typed by result and variables. */
export type Document<T, V> = DocumentTypeDecoration<T, V> & { toString(): string };

interface GraphQLError {
  message: string;
  path?: (string | number)[];
  extensions?: Record<string, unknown> & { code?: string };
}

export async function gql<T, V>(token: string, document: Document<T, V>, variables?: V, signal?: AbortSignal): Promise<T> {
  const res = await fetch("/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/graphql-response+json, application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: document.toString(), variables }),
    signal,
    credentials: "omit",
  });
  let body: { data?: T | null; errors?: GraphQLError[] };
  try {
    body = await res.json();
  } catch {
    throw new ApiError(`The server answered ${res.status} without a GraphQL body.`, "HTTP_ERROR", res.status);
  }
  const first = body.errors?.[0];
  if (first) {
    const { code = "INTERNAL_SERVER_ERROR", ...details } = first.extensions ?? {};
    throw new ApiError(first.message, code, code === "UNAUTHENTICATED" ? 401 : res.status, details);
  }
  if (!body.data) throw new ApiError("The server answered without data.", "HTTP_ERROR", res.status);
  return body.data;
}
