// The browser half of the passkey ceremonies (WebAuthn Level 3 JSON shapes, as
// @simplewebauthn/server sends and expects them): base64url in JSON, ArrayBuffers for the browser.

const bytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const text = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

interface Descriptor {
  id: string;
  type: "public-key";
  transports?: AuthenticatorTransport[];
}
const descriptors = (list?: Descriptor[]) => list?.map((d) => ({ ...d, id: bytes(d.id) }));

/** navigator.credentials.get() for the server's authentication options; the response as JSON. */
export async function passkeyAssertion(o: Record<string, any>): Promise<Record<string, unknown>> {
  const cred = (await navigator.credentials.get({ publicKey: { ...o, challenge: bytes(o.challenge), allowCredentials: descriptors(o.allowCredentials) } as unknown as PublicKeyCredentialRequestOptions })) as PublicKeyCredential | null;
  if (!cred) throw new Error("No passkey was chosen.");
  const r = cred.response as AuthenticatorAssertionResponse;
  return {
    id: cred.id,
    rawId: text(cred.rawId),
    type: cred.type,
    clientExtensionResults: cred.getClientExtensionResults(),
    response: {
      clientDataJSON: text(r.clientDataJSON),
      authenticatorData: text(r.authenticatorData),
      signature: text(r.signature),
      userHandle: r.userHandle ? text(r.userHandle) : undefined,
    },
  };
}

/** navigator.credentials.create() for the server's registration options; the response as JSON. */
export async function passkeyRegistration(o: Record<string, any>): Promise<Record<string, unknown>> {
  const cred = (await navigator.credentials.create({
    publicKey: { ...o, challenge: bytes(o.challenge), user: { ...o.user, id: bytes(o.user.id) }, excludeCredentials: descriptors(o.excludeCredentials) } as unknown as PublicKeyCredentialCreationOptions,
  })) as PublicKeyCredential | null;
  if (!cred) throw new Error("No passkey was created.");
  const r = cred.response as AuthenticatorAttestationResponse;
  return {
    id: cred.id,
    rawId: text(cred.rawId),
    type: cred.type,
    clientExtensionResults: cred.getClientExtensionResults(),
    response: { clientDataJSON: text(r.clientDataJSON), attestationObject: text(r.attestationObject), transports: r.getTransports() },
  };
}
