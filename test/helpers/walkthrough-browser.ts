// The reader's browser in the docs' sign-in steps, for test/walkthroughs.test.ts (a walk-through
// cannot click): loads the authorization URL, signs in, presses "Allow" and prints the code from
// the redirect, as the reader copies it from the address bar.
//   node --import tsx test/helpers/walkthrough-browser.ts <authorization URL> <email> <password>
import { browser } from "./signin-flow";

const [authorize, email, password] = process.argv.slice(2);
if (!authorize || !email || !password) {
  console.error("usage: walkthrough-browser.ts <authorization URL> <email> <password>");
  process.exit(2);
}
const url = new URL(authorize);
const b = browser(url.origin, url.origin);
const login = await b.open(url);
if (login.status !== 200) throw new Error(`sign-in page: ${login.status} ${login.html}`);
const consent = await b.submit(login, { email, password });
// A consent given before is remembered: then the code comes at once, without the consent page.
if (consent.status !== 200 && consent.status !== 302) throw new Error(`consent page: ${consent.status} ${consent.html}`);
const done = consent.status === 302 ? consent : await b.submit(consent, { decision: "allow" });
const code = done.location?.searchParams.get("code");
if (done.status !== 302 || !code) throw new Error(`no code: ${done.status} ${done.location ?? done.html}`);
console.log(code);
