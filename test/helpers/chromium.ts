// Headless Chromium for browser tests: Debian's /usr/bin/chromium driven by playwright-core, with
// the flags that keep it off the network (this machine's network is closed; without them Chromium
// keeps trying Google's hosts). Where Chromium is not installed the browser tests are skipped,
// except under CI (TOOLGATE_REQUIRE_BROWSER=1, set by .ci/run), where they fail instead: a CI run
// must never pass by skipping them.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Whether browser tests run here: Chromium is installed, or CI requires them (and then they fail without it). */
export const browserTestsRun = existsSync(CHROMIUM) || process.env.TOOLGATE_REQUIRE_BROWSER === "1";

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (browser tests are required here)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
