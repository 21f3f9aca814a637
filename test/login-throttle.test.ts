// Password guessing is slowed per account, and a right password is never confirmed to someone who
// cannot use it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startToolgate, type Harness } from "./helpers/harness";

const clock = new ManualClock(new Date("2026-03-01T10:00:00Z"));
let h: Harness;
beforeAll(async () => {
  h = await startToolgate({ clock });
});
afterAll(async () => h?.close());

const login = (email: string, password: string) => h.request("POST", "/svc/uflow/auth/login", { json: { email, password } });

describe("admin login throttle", () => {
  it("refuses an account after 10 wrong passwords for 15 minutes, even with the right one", async () => {
    for (let i = 0; i < 10; i++) expect((await login(ADMIN_EMAIL, `wrong-${i}`)).status).toBe(401);
    const locked = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body.error).toBe("too many failed sign-in attempts; try again later");
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(15 * 60 * 1000 + 1000);
    expect((await login(ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
  });

  it("counts per account: another account is unaffected", async () => {
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "calm@example.test", username: "calm", password: "calm-password-1" });
    for (let i = 0; i < 10; i++) await login("noisy@example.test", "wrong");
    expect((await login("calm@example.test", "calm-password-1")).status).toBe(200);
  });

  it("answers a right password without an active membership exactly like a wrong one", async () => {
    const created = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "gone@example.test", username: "gone", password: "gone-password-1" });
    await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${created.body.id}`, { status: "left" });
    const right = await login("gone@example.test", "gone-password-1");
    const wrong = await login("gone@example.test", "not-it-at-all");
    expect(right.status).toBe(401);
    expect(right.body).toEqual(wrong.body);
  });

  it("marks admin answers no-store (they can carry one-time secrets)", async () => {
    const r = await h.admin("POST", "/svc/resource-servers", { name: "S", public_base_url: "https://s.example.test", protected_base_path: "/" });
    expect(r.status).toBe(201);
    expect(r.headers.get("cache-control")).toBe("no-store");
  });
});
