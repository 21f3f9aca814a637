// effectiveScope (modules/tokens/subject-scopes.ts) runs on every introspection and is written as
// one loop for speed; it must answer exactly what its definition says: the token's scopes (split on
// spaces, empties dropped, first occurrence kept) that are still allowed, in the token's order.
import { describe, expect, it } from "vitest";
import { effectiveScope, parseScope } from "../src/modules/tokens";

const byDefinition = (scope: string | undefined, allowed: ReadonlySet<string>) => parseScope(scope).filter((s) => allowed.has(s)).join(" ");

describe("effectiveScope", () => {
  const allowed = new Set(["a", "b", "c", "files:read"]);
  const cases: (string | undefined)[] = [
    undefined,
    "",
    " ",
    "a",
    "a b c",
    "c b a",
    "a x b",
    "x y",
    "a a b",
    "a  b",
    " a b ",
    "files:read",
    "files:read files:write",
    Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? "a" : `s${i}`)).join(" "),
    Array.from({ length: 40 }, (_, i) => ["a", "b", "c"][i % 3]).join(" "),
  ];
  for (const scope of cases) {
    it(`answers as its definition for ${JSON.stringify(scope)}`, () => {
      expect(effectiveScope(scope, allowed)).toBe(byDefinition(scope, allowed));
    });
  }

  it("returns the token's own string when every scope is kept", () => {
    expect(effectiveScope("a b c", allowed)).toBe("a b c");
    expect(effectiveScope("a b a", allowed)).toBe("a b");
    expect(effectiveScope("a b", new Set())).toBe("");
  });
});
