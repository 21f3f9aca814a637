// passkey.js, the one script of the sign-in pages (served from our own origin: the pages' CSP
// allows 'self' scripts only). It shows the passkey button when the browser has WebAuthn, runs
// the ceremony (options from data-begin with the page's ticket, navigator.credentials.get, the
// response to data-finish) and follows the answer's redirect. Binary fields travel as base64url
// (WebAuthn Level 3 JSON encoding). Failures show one fixed text; the server logs the reason.
// The account page (account-page.ts) uses the same file to register a passkey (data-mode="register").
export const PASSKEY_SCRIPT = `"use strict";
(() => {
  const box = document.getElementById("passkey");
  if (!box || !window.PublicKeyCredential || !navigator.credentials) return;
  const button = box.querySelector("button");
  const status = box.querySelector("[role=status]");
  box.hidden = false;
  const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const text = (b) => {
    let s = "";
    for (const x of new Uint8Array(b)) s += String.fromCharCode(x);
    return btoa(s).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  };
  const post = async (url, body) => {
    const r = await fetch(url, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const j = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(j.error || String(r.status));
    return j;
  };
  const ids = (list) => (list || []).map((c) => ({ ...c, id: bytes(c.id) }));
  const signIn = async () => {
    const o = await post(box.dataset.begin, { ticket: box.dataset.ticket });
    const cred = await navigator.credentials.get({ publicKey: { ...o, challenge: bytes(o.challenge), allowCredentials: ids(o.allowCredentials) } });
    const r = cred.response;
    return post(box.dataset.finish, {
      ticket: box.dataset.ticket,
      response: {
        id: cred.id, rawId: text(cred.rawId), type: cred.type, authenticatorAttachment: cred.authenticatorAttachment || undefined,
        clientExtensionResults: cred.getClientExtensionResults(),
        response: { clientDataJSON: text(r.clientDataJSON), authenticatorData: text(r.authenticatorData), signature: text(r.signature), userHandle: r.userHandle ? text(r.userHandle) : undefined },
      },
    });
  };
  const register = async () => {
    const o = await post(box.dataset.begin, {});
    const cred = await navigator.credentials.create({ publicKey: { ...o, challenge: bytes(o.challenge), user: { ...o.user, id: bytes(o.user.id) }, excludeCredentials: ids(o.excludeCredentials) } });
    const r = cred.response;
    return post(box.dataset.finish, {
      name: box.dataset.name || undefined,
      response: {
        id: cred.id, rawId: text(cred.rawId), type: cred.type, authenticatorAttachment: cred.authenticatorAttachment || undefined,
        clientExtensionResults: cred.getClientExtensionResults(),
        response: { clientDataJSON: text(r.clientDataJSON), attestationObject: text(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] },
      },
    });
  };
  button.addEventListener("click", async () => {
    status.hidden = true;
    button.disabled = true;
    try {
      const done = await (box.dataset.mode === "register" ? register() : signIn());
      if (done.redirect) location.assign(done.redirect);
      else location.reload();
    } catch (e) {
      status.textContent = box.dataset.mode === "register" ? "The passkey could not be added." : "The passkey could not be used. Try again, or use your password.";
      status.hidden = false;
      button.disabled = false;
    }
  });
})();
`;
