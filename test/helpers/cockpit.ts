// What the cockpit's browser tests share: one headless Chromium per file (Debian's, driven by
// playwright-core), signing in through the cockpit's own form, and the accessibility check
// (axe-core: no serious or critical violation on the screen or dialog in view).
import { existsSync } from "node:fs";
import { expect } from "vitest";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { ADMIN_EMAIL, ADMIN_PASSWORD, type Harness } from "./harness";

export const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Fails (never skips) without Chromium: the cockpit's tests are part of every run, CI included. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium) to run the cockpit's browser tests`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** Browser errors (uncaught exceptions, console errors, CSP refusals) collected for the test to assert on. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}${m.location().url ? ` (${m.location().url})` : ""}`);
  });
  return errors;
}

export async function signIn(page: Page, h: Harness, who: { email: string; password: string } = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }): Promise<void> {
  await page.goto(`${h.url}/cockpit/`);
  await page.getByLabel("Email", { exact: true }).fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Signing in hashes a password: on a loaded machine it can take seconds.
  await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), { timeout: 20_000 }).not.toBe("Sign in to Toolgate");
}

/** Navigates inside the app (no reload: the session lives in memory) by its navigation or a link. */
export async function goTo(page: Page, section: "Applications" | "Clients and connections" | "Access requests" | "People and access" | "Explain" | "Audit trail" | "Settings"): Promise<void> {
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: section }).click();
  await page.getByRole("heading", { level: 1, name: section }).waitFor();
}

/** Zero serious or critical axe violations in what is on screen (a mounted page: main or an open dialog). */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.locator("main, dialog[open]").first().waitFor();
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`), `axe on ${what}`).toEqual([]);
}
