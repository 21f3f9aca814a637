// Helpers shared by the people-and-access type files (users, memberships, end users, roles,
// groups, role bindings): root fields ask the service first (role check, workspace scope, order)
// and then read the rows with the operation's selection.
import { DomainError } from "../../shared/errors";

/** Puts rows in the order of `ids` (the service's order) and drops ids that vanished in between. */
export function inOrder<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** A single-item root field answers null (not an error) for an unknown or other workspace's id. */
export async function nullIfNotFound<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof DomainError && e.code === "not_found") return null;
    throw e;
  }
}

const toSnake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * camelCase keys to snake_case for PATCH-like inputs, keeping explicit nulls (null clears a field,
 * as in REST) and dropping only absent keys.
 */
export function toWirePatch(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (v !== undefined) out[toSnake(k)] = v;
  return out;
}
