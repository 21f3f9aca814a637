// Seeds and shoots the identity screens for scripts/cockpit-screenshots.ts: an upstream OpenID
// Provider (the tests' node-oidc-provider) registered as an identity provider for end users and
// admins, an ID-JAG issuer and a workload trust (a throwaway key set), an agent whose first ID-JAG
// connections wait as access requests (one approved), then Settings → Identity providers, Trusts,
// Metrics, Access requests and the sign-in's "Continue with".
import type { Browser, Page } from "playwright-core";
import type { Harness } from "../test/helpers/harness";
import { startOidcProvider, type OidcProviderHandle } from "../test/helpers/upstream-idp";
import { TestIdp } from "../test/helpers/test-idp";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const AGENT_ISSUER = "https://acme.okta.example";

async function ok(h: Harness, method: string, path: string, json: unknown): Promise<any> {
  const r = await h.admin(method, path, json);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

export async function seedIdentity(h: Harness, rsId: string): Promise<OidcProviderHandle> {
  const op = await startOidcProvider(`${h.url}/svc/hmgr/callback`);
  await ok(h, "POST", "/svc/oocmgr/providers", { name: "Acme SSO", issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret, email_domains: ["acme.test"], allowed_for: ["end_users", "admins"] });
  await ok(h, "POST", "/svc/oocmgr/providers", { name: "Contractors (Keycloak)", issuer: op.issuer, client_id: op.clientId, enabled: false });
  const idp = await TestIdp.create(AGENT_ISSUER);
  await ok(h, "POST", "/svc/oocmgr/id-jag-trusts", { name: "Acme Okta", issuer: AGENT_ISSUER, jwks: idp.jwks(), jit_create_users: true });
  const server = await ok(h, "GET", `/svc/resource-servers/${rsId}`, undefined);
  const agent = await ok(h, "POST", `/svc/resource-servers/${rsId}/clients`, { client_name: "Claude (enterprise)", kind: "agent", redirect_uris: [], grant_types: [JWT_BEARER], allowed_scopes: ["notes:read", "notes:write"] });
  await ok(h, "POST", "/svc/spire/trust-domains", { name: "Prod SPIRE", trust_domain: "prod.acme.internal", jwks: idp.jwks(), audience: "toolgate", rules: [{ pattern: "spiffe://prod.acme.internal/export/*", client_id: agent.client_id }] });
  for (const who of ["ann", "ben", "cho"]) {
    const assertion = await idp.mint({ sub: `00u-${who}`, email: `${who}@acme.test`, aud: h.config.publicUrl, client_id: agent.client_id, resource: server.resource_url, scope: "notes:read notes:write" });
    await h.request("POST", "/oauth/token", { basic: [agent.client_id, agent.client_secret], form: { grant_type: JWT_BEARER, assertion } });
  }
  const pending = (await ok(h, "GET", "/svc/access-requests?status=pending", undefined)).items;
  await ok(h, "POST", `/svc/access-requests/${pending[0].id}/approve`, { scopes: ["notes:read"] });
  return op;
}

export async function shootIdentity(browser: Browser, page: Page, h: Harness, shoot: (page: Page, name: string, heading: string) => Promise<void>): Promise<void> {
  const tab = async (label: string) => page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: label }).click();
  await tab("Identity providers");
  await page.getByRole("table", { name: "Identity providers" }).getByText("Acme SSO").first().waitFor();
  await shoot(page, "20-settings-identity-providers", "Settings");
  await tab("Trusts");
  await page.getByRole("table", { name: "Workload identity trusts" }).getByText("Prod SPIRE").first().waitFor();
  await shoot(page, "21-settings-trusts", "Settings");
  await tab("Metrics");
  await page.getByTestId("metrics-status").waitFor();
  await shoot(page, "22-settings-metrics", "Settings");
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Access requests" }).click();
  await page.getByRole("table", { name: /^Access requests/ }).getByText("ann@acme.test").first().waitFor();
  await page.getByRole("button", { name: /^Approve Claude \(enterprise\) for ann/ }).click();
  await page.getByRole("dialog").getByRole("checkbox", { name: "notes:write" }).uncheck();
  await shoot(page, "23-access-requests", "Access requests");
  const signIn = await (await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1, colorScheme: "light" })).newPage();
  await signIn.goto(`${h.url}/cockpit/signin?workspace=${h.workspaceId}`);
  await signIn.getByRole("link", { name: "Continue with Acme SSO" }).waitFor();
  await shoot(signIn, "24-sign-in-continue-with", "Sign in to Toolgate");
}
