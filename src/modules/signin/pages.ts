// Server-rendered sign-in and consent pages: plain, accessible HTML (labels, one h1, a main
// landmark). Every interpolated value is escaped, and every value the client chose (its name,
// client_id, metadata host, redirect host, resource) is isolated in <bdi>: a bidirectional control
// character in it (U+202A-U+202E, U+2066-U+2069) cannot reorder the rest of the sentence, such as
// "(name not verified)" or the redirect host (Unicode UAX #9 isolates; HTML's bdi element). The
// only script is our own passkey.js (same origin, no inline code): without it, or without
// WebAuthn, the passkey button stays hidden and the forms work as before.

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A client-chosen string, escaped and isolated from the text around it. */
const isolated = (s: string) => `<bdi>${escapeHtml(s)}</bdi>`;

function page(title: string, body: string, script?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Toolgate</title>${script ? `\n<script src="${escapeHtml(script)}" defer></script>` : ""}
<style>
body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1.25rem;margin-right:.5rem;padding:.5rem 1rem;font-size:1rem}
.error{color:#a00;border:1px solid #a00;padding:.5rem}
code{background:#f2f2f2;padding:0 .25rem}
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

export interface ClientDisplay {
  clientName: string;
  /** false when the client named itself (dcr/cimd): the page says so. */
  clientNameVerified: boolean;
  clientId: string;
  /** CIMD: the host serving the client's metadata document (its identity). */
  metadataHost?: string;
  redirectHost: string;
  resource: string;
  scopes: string[];
}

/** Absolute form targets (a relative action resolves against whichever page shows the form). */
export interface FormActions {
  login: string;
  consent: string;
  secondFactor: string;
  /** The passkey script and the JSON endpoints it calls. */
  passkeyScript: string;
  passkeyBegin: string;
  passkeyFinish: string;
  logout: string;
}

/**
 * The passkey button: hidden until passkey.js finds WebAuthn in the browser; it runs the ceremony
 * against `begin`/`finish` with the page's ticket and follows the answer's redirect.
 */
function passkeyBox(actions: FormActions, ticket: string, label: string): string {
  return `<div id="passkey" hidden data-ticket="${escapeHtml(ticket)}" data-begin="${escapeHtml(actions.passkeyBegin)}" data-finish="${escapeHtml(actions.passkeyFinish)}">
<button type="button">${escapeHtml(label)}</button>
<p role="status" class="error" hidden></p>
</div>`;
}

/** The client's name, marked when the client chose it itself, with the CIMD host when there is one. */
function clientLabel(client: ClientDisplay): string {
  const name = `<strong>${isolated(client.clientName)}</strong>`;
  const unverified = client.clientNameVerified ? "" : ` <em>(name not verified)</em>`;
  const host = client.metadataHost ? ` from <strong>${isolated(client.metadataHost)}</strong>` : "";
  return name + unverified + host;
}

/** An upstream identity provider offered on the sign-in page: its name and the login proxy's start link. */
export interface ProviderChoice {
  name: string;
  href: string;
}

/**
 * "Continue with <provider>" links, and the home-realm discovery form: an email whose domain
 * belongs to a provider goes straight to it (GET /svc/hmgr/login with login_hint).
 */
function providerBox(ticket: string, providers: readonly ProviderChoice[], discoverAction: string | undefined, email: string | undefined): string {
  if (providers.length === 0) return "";
  const links = providers.map((p) => `<li><a href="${escapeHtml(p.href)}">Continue with ${escapeHtml(p.name)}</a></li>`).join("");
  const discover = discoverAction
    ? `<form method="get" action="${escapeHtml(discoverAction)}">
<input type="hidden" name="ticket" value="${escapeHtml(ticket)}">
<label for="sso-email">Work email (single sign-on)</label>
<input id="sso-email" name="login_hint" type="email" autocomplete="username" required value="${escapeHtml(email ?? "")}">
<button type="submit">Continue with single sign-on</button>
</form>`
    : "";
  return `<section aria-label="Single sign-on">
<h2>Or sign in with your organization</h2>
<ul>${links}</ul>
${discover}
</section>`;
}

export function loginPage(opts: {
  ticket: string;
  client: ClientDisplay;
  actions: FormActions;
  error?: string;
  email?: string;
  providers?: readonly ProviderChoice[];
  discoverAction?: string;
  /** false: the workspace turned the password form off (providers and passkeys remain). */
  password?: boolean;
}): string {
  const { client } = opts;
  return page(
    "Sign in",
    `<h1>Sign in</h1>
<p>${clientLabel(client)} wants to access <code>${isolated(client.resource)}</code> on your behalf.</p>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ""}
${opts.password === false ? "" : `<form method="post" action="${escapeHtml(opts.actions.login)}">
<input type="hidden" name="ticket" value="${escapeHtml(opts.ticket)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username webauthn" required value="${escapeHtml(opts.email ?? "")}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`}
${passkeyBox(opts.actions, opts.ticket, "Sign in with a passkey")}
${providerBox(opts.ticket, opts.providers ?? [], opts.discoverAction, opts.email)}`,
    opts.actions.passkeyScript,
  );
}

/** The second step after the password: a code from the authenticator app (or a recovery code), or a passkey. */
export function secondFactorPage(opts: { ticket: string; actions: FormActions; email: string; otp: boolean; passkey: boolean; error?: string }): string {
  const otpForm = opts.otp
    ? `<form method="post" action="${escapeHtml(opts.actions.secondFactor)}">
<input type="hidden" name="ticket" value="${escapeHtml(opts.ticket)}">
<label for="code">Code from your authenticator app, or a recovery code</label>
<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" required autofocus>
<button type="submit">Verify</button>
</form>`
    : "";
  return page(
    "Verify it's you",
    `<h1>Verify it's you</h1>
<p>Signed in as <strong>${escapeHtml(opts.email)}</strong>. This account has a second factor.</p>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ""}
${otpForm}
${opts.passkey ? passkeyBox(opts.actions, opts.ticket, "Use a passkey") : ""}`,
    opts.passkey ? opts.actions.passkeyScript : undefined,
  );
}

/** RP-initiated logout without a hint naming this browser's session: the person confirms (no cross-site sign-out). */
export function logoutPage(opts: { ticket: string; action: string; clientName?: string }): string {
  return page(
    "Sign out",
    `<h1>Sign out?</h1>
<p>${opts.clientName ? `${isolated(opts.clientName)} asks to sign you out of Toolgate.` : "Sign out of Toolgate in this browser?"}</p>
<form method="post" action="${escapeHtml(opts.action)}">
<input type="hidden" name="ticket" value="${escapeHtml(opts.ticket)}">
<button type="submit" name="decision" value="logout">Sign out</button>
<button type="submit" name="decision" value="stay">Stay signed in</button>
</form>`,
  );
}

export function signedOutPage(): string {
  return page("Signed out", `<h1>You are signed out</h1>\n<p>You may close this window.</p>`);
}

/** What the consent page names besides the client (signin-service's ConsentContext). */
export interface ConsentDisplay {
  serverName: string;
  workspaceName: string;
  scopes: Array<{ key: string; name: string; description: string | null }>;
}

export function consentPage(opts: { ticket: string; client: ClientDisplay; context: ConsentDisplay; actions: FormActions; userEmail: string }): string {
  const { client, context } = opts;
  const described = new Map(context.scopes.map((s) => [s.key, s]));
  const scopeItem = (key: string) => {
    const s = described.get(key);
    const label = s && s.name !== key ? `${escapeHtml(s.name)} (<code>${escapeHtml(key)}</code>)` : `<code>${escapeHtml(key)}</code>`;
    return `<li>${label}${s?.description ? `: ${escapeHtml(s.description)}` : ""}</li>`;
  };
  const scopes = client.scopes.length ? `<ul>${client.scopes.map(scopeItem).join("")}</ul>` : "<p>No specific permissions (scopes) were requested.</p>";
  return page(
    "Allow access",
    `<h1>Allow access?</h1>
<p>Signed in as <strong>${escapeHtml(opts.userEmail)}</strong>.</p>
<p>${clientLabel(client)} (client <code>${isolated(client.clientId)}</code>) asks to use
<strong>${escapeHtml(context.serverName)}</strong> (<code>${isolated(client.resource)}</code>) in the workspace
<strong>${escapeHtml(context.workspaceName)}</strong> with these permissions:</p>
${scopes}
<p>After you decide, you will be sent to <strong>${isolated(client.redirectHost)}</strong>.</p>
<p>Toolgate remembers your answer for this application; you can forget it under your account's consents.</p>
<form method="post" action="${escapeHtml(opts.actions.consent)}">
<input type="hidden" name="ticket" value="${escapeHtml(opts.ticket)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** A page that says what happened (a refused or failed federated sign-in) and, when it can, offers to start again. */
export function noticePage(title: string, message: string, again?: { href: string; label: string }): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>${again ? `\n<p><a href="${escapeHtml(again.href)}">${escapeHtml(again.label)}</a></p>` : ""}`,
  );
}

export function errorPage(message: string): string {
  return page("Sign-in error", `<h1>This sign-in request cannot continue</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>`);
}
