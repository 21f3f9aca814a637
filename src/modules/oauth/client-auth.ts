// Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1):
//   client_secret_basic — Authorization: Basic base64(form-urlencoded id ":" form-urlencoded secret)
//   client_secret_post  — client_id and client_secret in the form body
//   none                — a public client (RFC 7591 §2, OAuth 2.1 §2.1): client_id in the body, no
//                         secret. Only a client registered as public (no secret) is accepted this
//                         way; a confidential client without its secret is invalid_client. What a
//                         public client may do is limited elsewhere: PKCE at the authorization
//                         endpoint, never client_credentials (grants/client-credentials.ts).
//   private_key_jwt     — client_assertion_type + client_assertion (RFC 7523 §2.2), for cimd clients
//                         whose document publishes their keys (assertions/assertion-verifier.ts).
//                         Looked at only when the request carries client_assertion(_type), so the
//                         secret-based hot path is unchanged.
// A request must use exactly one method (§2.3: "MUST NOT use more than one authentication method
// in each request"): a secret in both places is invalid_request. Every failure to authenticate
// (unknown id, wrong secret, revoked or not yet approved client, no credentials) is the same
// invalid_client with the same description, so a prober learns nothing about which check failed.
// Nor from the time it takes: an id never seen must be looked up in the database, while a known
// id (or one known not to exist) is answered from memory. So a refusal costs one database read
// whatever the id: a miss has made it already; an id answered from memory reads its stored secret
// hashes (ClientRegistry.storedSecrets: about what a lookup that finds nothing costs), and the
// secret is checked once more either way (docs/decisions/0006-hot-paths-answer-from-memory.md, amended).
// Successes stay in memory.
import type { ClientRegistry, RegisteredClient } from "../clients";
import type { Clock } from "../../shared/clock";
import { CredentialCache } from "./credential-cache";
import { CLIENT_ASSERTION_TYPE, type ClientAssertionVerifier } from "./assertions/assertion-verifier";
import { oauthError } from "./errors";
import { single, type RawParams } from "./params";

export const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

export interface ClientCredentialsInput {
  /** Parsed Basic credentials (rest/basic-auth.ts), undefined when the header is absent. */
  basic?: { id: string; secret: string };
  /** true when an Authorization header was sent but is not valid Basic. */
  malformedAuthorization?: boolean;
  params: RawParams;
}

export interface AuthenticatedClient {
  client: RegisteredClient;
  method: ClientAuthMethod;
}

export class ClientAuthenticator {
  private readonly verified = new CredentialCache();

  constructor(
    private readonly clients: ClientRegistry,
    private readonly clock: Clock,
    private readonly assertions: ClientAssertionVerifier,
  ) {}

  async authenticate(input: ClientCredentialsInput): Promise<AuthenticatedClient> {
    if (input.malformedAuthorization) throw oauthError("invalid_client", "Authorization header is not valid Basic");
    if (input.params.client_assertion !== undefined || input.params.client_assertion_type !== undefined) return this.withAssertion(input);
    const bodyId = single(input.params, "client_id");
    const bodySecret = single(input.params, "client_secret");
    let id: string;
    let secret: string;
    let method: ClientAuthMethod;
    if (input.basic) {
      // Two methods at once, or a body client_id naming someone else: malformed, not a failed login.
      if (bodySecret !== undefined || (bodyId !== undefined && bodyId !== input.basic.id)) {
        throw oauthError("invalid_request", "more than one client authentication method, or a body client_id other than Basic's");
      }
      ({ id, secret } = input.basic);
      method = "client_secret_basic";
    } else if (bodyId !== undefined && bodySecret !== undefined) {
      id = bodyId;
      secret = bodySecret;
      method = "client_secret_post";
    } else if (bodyId !== undefined) {
      return { client: await this.publicClient(bodyId), method: "none" };
    } else {
      throw oauthError("invalid_client", "no client credentials");
    }
    const client = await this.verify(id, secret);
    if (!client) throw oauthError("invalid_client", "unknown client_id or wrong secret");
    if (client.status !== "approved") throw oauthError("invalid_client", `client status ${client.status}`);
    return { client, method };
  }

  /** RFC 7523 §2.2: the assertion alone authenticates; a secret besides it is a second method. */
  private async withAssertion(input: ClientCredentialsInput): Promise<AuthenticatedClient> {
    if (input.basic || single(input.params, "client_secret") !== undefined) throw oauthError("invalid_request", "a client assertion together with a client secret");
    const type = single(input.params, "client_assertion_type");
    const assertion = single(input.params, "client_assertion");
    if (type !== CLIENT_ASSERTION_TYPE) throw oauthError("invalid_client", "unsupported or missing client_assertion_type");
    if (assertion === undefined) throw oauthError("invalid_client", "client_assertion missing");
    return { client: await this.assertions.verify(assertion, single(input.params, "client_id")), method: "private_key_jwt" };
  }

  /** A client_id alone: valid only for an approved public client (no secret registered). */
  private async publicClient(id: string): Promise<RegisteredClient> {
    const { client, read } = await this.find(id);
    const refusal = publicClientRefusal(client);
    if (refusal === undefined) return client!;
    if (!read) await this.clients.storedSecrets(id); // the one database read of every refusal (file comment)
    throw oauthError("invalid_client", refusal);
  }

  private async verify(id: string, secret: string): Promise<RegisteredClient | undefined> {
    const { client, read } = await this.find(id);
    // A rotated-out secret's grace is judged per request against the clock (the entry holds both hashes).
    if (client && this.verified.check(id, secret, (verified) => this.clients.accepts(client, verified, this.clock))) return client;
    const matched = this.clients.verifySecret(client, secret, this.clock);
    if (client && matched) return this.remember(id, secret, client, matched);
    // Refused so far: one database read for every refusal (the file comment), then the check again.
    const stored = read ? client : await this.clients.storedSecrets(id);
    if (!this.clients.verifySecret(stored, secret, this.clock)) return undefined;
    // It matches what is stored but not the entry in memory: the secret was rotated (or the client
    // created) on another instance a moment ago, before its change reached this one.
    const fresh = await this.clients.load(id);
    const now = this.clients.verifySecret(fresh, secret, this.clock);
    return fresh && now ? this.remember(id, secret, fresh, now) : undefined;
  }

  private remember(id: string, secret: string, client: RegisteredClient, matchedHash: string): RegisteredClient {
    this.verified.remember(id, secret, matchedHash);
    return client;
  }

  /** The client from memory, or from the database on a miss (`read`: this request queried it). */
  private async find(id: string): Promise<{ client: RegisteredClient | null; read: boolean }> {
    const cached = this.clients.peek(id);
    return cached === undefined ? { client: await this.clients.load(id), read: true } : { client: cached, read: false };
  }
}

/** Why a client_id alone does not authenticate this client, or undefined when it does. */
function publicClientRefusal(client: RegisteredClient | null): string | undefined {
  if (!client) return "unknown client_id";
  if (client.secretHash !== null || client.tokenEndpointAuthMethod !== "none") return "a confidential client sent no secret";
  if (client.status !== "approved") return `client status ${client.status}`;
  return undefined;
}
