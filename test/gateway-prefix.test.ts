// The spec's gateway module prefix `/svc/uflow/` in front of the object-first `/uflow/v2/...` paths
// (src/rest/gateway-prefix.ts): every /svc/uflow/v2 request is answered exactly as /uflow/v2.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

describe("/svc/uflow/v2/* answers what /uflow/v2/* answers", () => {
  it("creates, reads, lists and deletes through either prefix, with the same answers", async () => {
    const ws = h.workspaceId;
    const created = await h.admin("POST", `/svc/uflow/v2/tenants/${ws}/users`, { email: "gw@example.test", username: "gw" });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    for (const path of [`/tenants/${ws}/memberships/${id}`, `/tenants/${ws}/end-users?limit=5`, `/tenants/${ws}/memberships?status=active`, `/users/${id}/effective-access`]) {
      const plain = await h.admin("GET", `/uflow/v2${path}`);
      const prefixed = await h.admin("GET", `/svc/uflow/v2${path}`);
      expect(plain.status, path).toBe(200);
      expect(prefixed.status, path).toBe(200);
      expect(prefixed.body, path).toEqual(plain.body);
    }
    const group = await h.admin("POST", "/svc/uflow/v2/groups", { name: "Gateway group" });
    expect(group.status).toBe(201);
    expect((await h.admin("POST", `/svc/uflow/v2/groups/${group.body.id}/members`, { user_id: id })).status).toBe(201);
    expect((await h.admin("GET", `/uflow/v2/groups/${group.body.id}/members`)).body.items.map((m: any) => m.user_id)).toEqual([id]);
    expect((await h.admin("DELETE", `/svc/uflow/v2/groups/${group.body.id}`)).status).toBe(204);
    expect((await h.admin("GET", `/uflow/v2/groups/${group.body.id}`)).status).toBe(404);
  });

  it("keeps the admin JWT, the tenant check, the 404 and the 415 of the plain paths", async () => {
    const ws = h.workspaceId;
    for (const prefix of ["/uflow/v2", "/svc/uflow/v2"]) {
      const anonymous = await h.request("GET", `${prefix}/tenants/${ws}/memberships`);
      expect(anonymous.status, prefix).toBe(401);
      const other = await h.createWorkspace(`gw-other-${prefix.length}@example.test`);
      expect((await h.request("GET", `${prefix}/tenants/${ws}/memberships`, { token: other.token })).status, prefix).toBe(403);
      expect((await h.admin("GET", `${prefix}/no-such-thing`)).body, prefix).toEqual({ error: "not found" });
      const form = await h.request("POST", `${prefix}/groups`, { token: h.adminToken, form: { name: "x" } });
      expect(form.status, prefix).toBe(415);
    }
    // Only the v2 family is aliased: /svc/uflow/auth/login stays the login, /svc/uflow/v2x is unknown.
    expect((await h.admin("GET", "/svc/uflow/v2x/groups")).status).toBe(404);
  });
});
