// The pure parts of toolgate/sdk: the definition hash both sides compute, the RFC 6750 challenge,
// the RFC 9728 well-known paths, and the per-tool decision.
import { describe, expect, it } from "vitest";
import { bearerChallenge, canonicalJson, metadataPaths, toolDefinitionHash } from "toolgate/sdk";
import { decideTool } from "../src/sdk/tool-policy";
import type { PolicyDocument } from "../src/sdk/toolgate-api";

describe("toolgate/sdk pure parts", () => {
  it("hashes a definition canonically: key order and absent members do not matter, content does", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x"], c: undefined, d: { z: 1, y: 2 } })).toBe('{"a":[true,null,"x"],"b":1,"d":{"y":2,"z":1}}');
    const a = toolDefinitionHash({ name: "t", description: "d", inputSchema: { type: "object", properties: { x: { type: "string" } } } });
    const b = toolDefinitionHash({ inputSchema: { properties: { x: { type: "string" } }, type: "object" }, description: "d", name: "t" });
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(toolDefinitionHash({ name: "t" })).toBe(toolDefinitionHash({ name: "t", description: null, inputSchema: null }));
    expect(toolDefinitionHash({ name: "t", description: "d " })).not.toBe(toolDefinitionHash({ name: "t", description: "d" }));
  });

  it("builds challenges per RFC 6750 §3 and well-known paths per RFC 9728 §3.1", () => {
    expect(bearerChallenge({ resourceMetadata: "https://h/.well-known/oauth-protected-resource/mcp", scope: ["a", "b"] })).toBe(
      'Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", scope="a b"',
    );
    expect(bearerChallenge({ resourceMetadata: "m", error: "invalid_token", description: 'say "hi"\\\n' })).toBe('Bearer resource_metadata="m", error="invalid_token", error_description="say  hi   "');
    expect(metadataPaths("https://h/mcp/")).toEqual({ pathInserted: "/.well-known/oauth-protected-resource/mcp", root: "/.well-known/oauth-protected-resource" });
    expect(metadataPaths("https://h/")).toEqual({ pathInserted: "/.well-known/oauth-protected-resource", root: "/.well-known/oauth-protected-resource" });
  });

  it("decides a tool: incomplete policy, unmapped, changed definition, public, any-of scopes, step-up", () => {
    const policy: PolicyDocument = {
      rs_id: "r",
      state: "ready",
      policy_complete: true,
      scope_matrix: { pub: [], read: ["r", "rw"], pinned: ["r"] },
      definition_hashes: { pinned: "sha256:x" },
      drift_events: [],
    };
    const live = new Map([["pinned", "sha256:y"]]);
    expect(decideTool({ ...policy, policy_complete: false, reason: "not yet" }, live, "pub", [])).toEqual({ allowed: false, kind: "denied", description: "the policy is incomplete: not yet" });
    expect(decideTool(undefined, live, "pub", [])).toMatchObject({ allowed: false, kind: "denied" });
    expect(decideTool(policy, live, "__proto__", ["r"])).toMatchObject({ allowed: false, kind: "denied", description: expect.stringContaining("not mapped") });
    expect(decideTool(policy, live, "pinned", ["r"])).toMatchObject({ allowed: false, kind: "denied", description: expect.stringContaining("changed since it was approved") });
    expect(decideTool(policy, new Map([["pinned", "sha256:x"]]), "pinned", ["r"])).toEqual({ allowed: true });
    expect(decideTool(policy, live, "pub", [])).toEqual({ allowed: true });
    expect(decideTool(policy, live, "read", ["rw"])).toEqual({ allowed: true });
    expect(decideTool(policy, live, "read", ["x"])).toEqual({ allowed: false, kind: "insufficient_scope", description: "the tool read needs one of: r rw", needed: ["r", "rw"] });
  });
});
