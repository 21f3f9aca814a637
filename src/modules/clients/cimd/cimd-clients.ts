// CIMD clients (registration_mode "cimd"): the https URL of a client's metadata document is its
// client_id. At an authorization request naming such a client_id, the document is fetched (or
// reused while its HTTP freshness lasts, bounded) and validated, and the client's row is created
// or brought up to date (the clients module owns the table). A client of no workspace, like a dcr
// client: it reaches servers through connections (../connections.ts).
//
// Redirect URIs (spec "cimd": "When the redirect URIs in the document change, the change is
// staged until an administrator approves it"): the first document's redirect_uris are the
// approved set; a later document listing a different set stages it in stagedRedirectUris and the
// approved set stays in force until PUT .../clients/:client_id/approve-redirects (ClientService).
// A private_key_jwt document's jwks / jwks_uri are kept in registrationMetadata; the client
// registry reads them from there for the token endpoint (RegisteredClient.assertionKeys).
// A failure (unreachable, non-200, too large, invalid) refuses the authorization and is never
// remembered: the next request fetches again (D6). What bounds the fetches anyone can cause is a
// per-address limit (TOOLGATE_CIMD_FETCH_RATE_LIMIT a minute, shared by every instance:
// ../address-limits.ts): the requester's address, not the document's host, so a flood of bogus
// URLs on a popular host cannot lock that host's clients out.
import type { Db } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";
import { DbNull } from "@prisma/client/runtime/client";
import type { Prisma } from "../../../generated/sqlite/client";
import { isUniqueViolation } from "../../../storage";
import { TOKEN_LIFETIME } from "../schemas";
import { cimdUrl } from "./client-id";
import { readCimdDocument, type CimdMetadata } from "./document";
import { fetchCimdDocument, type CimdFetchOptions } from "./fetch-document";
import type { AddressRateLimit } from "../address-limits";

const MAX_TRACKED = 10_000;

/** The page's reason for a fetch that reached an address allowed only by TOOLGATE_SCAN_ALLOW_PRIVATE. */
export const CIMD_UNREACHABLE = "the metadata document cannot be fetched from its URL (the reason is in the server log)";

export type CimdOutcome = { ok: true } | { ok: false; reason: string; retryAfter?: number };

export interface CimdStats {
  fetched: number;
  refused: number;
  reused: number;
  rateLimited: number;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

export class CimdClients {
  /** client_id -> until when (epoch ms) the last valid document may be reused. */
  private readonly freshUntil = new Map<string, number>();
  readonly stats: CimdStats = { fetched: 0, refused: 0, reused: 0, rateLimited: 0 };

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly fetchOptions: CimdFetchOptions,
    /** Where the full reason of a refusal goes (the log), when the page says less. */
    private readonly onRefused: (clientId: string, reason: string) => void,
    /** Document fetches per requester address (TOOLGATE_CIMD_FETCH_RATE_LIMIT a minute). */
    private readonly fetches: AddressRateLimit,
  ) {}

  /**
   * Makes sure the client's row reflects a valid, fresh document; the refusal otherwise.
   * `address`: the client address of the request that needs it (counted when a fetch is needed).
   */
  async ensure(clientId: string, address?: string): Promise<CimdOutcome> {
    const now = this.clock.now().getTime();
    if ((this.freshUntil.get(clientId) ?? 0) > now) {
      this.stats.reused++;
      return { ok: true };
    }
    const url = cimdUrl(clientId);
    if (!url.ok) return this.refuse(url.reason);
    const wait = address === undefined ? 0 : await this.fetches.take(address);
    if (wait > 0) {
      this.stats.rateLimited++;
      return { ok: false, reason: `too many metadata documents were fetched for requests from your address; try again in ${wait} s`, retryAfter: wait };
    }
    const fetched = await fetchCimdDocument(url.url, this.fetchOptions);
    if (!fetched.ok) {
      this.onRefused(clientId, fetched.reason);
      // With private networks allowed (TOOLGATE_SCAN_ALLOW_PRIVATE=1), anyone who can open the
      // authorization page could otherwise map what answers inside the network (status, size,
      // timeouts): the page then says only that the document could not be fetched.
      return this.refuse(fetched.reached && this.fetchOptions.allowPrivateNetworks ? CIMD_UNREACHABLE : fetched.reason);
    }
    const doc = readCimdDocument(clientId, fetched.json);
    if (!doc.ok) return this.refuse(doc.reason);
    this.stats.fetched++;
    const saved = await this.save(clientId, doc.metadata);
    if (!saved.ok) return this.refuse(saved.reason);
    if (fetched.maxAgeSeconds > 0) {
      if (this.freshUntil.size >= MAX_TRACKED) this.freshUntil.delete(this.freshUntil.keys().next().value!);
      this.freshUntil.set(clientId, now + fetched.maxAgeSeconds * 1000);
    }
    return { ok: true };
  }

  private refuse(reason: string): CimdOutcome {
    this.stats.refused++;
    return { ok: false, reason };
  }

  private async save(clientId: string, m: CimdMetadata): Promise<CimdOutcome> {
    const { redirect_uris, grant_types, token_endpoint_auth_method, client_name, ...rest } = m;
    const now = this.clock.now();
    // jwks is JSON read from the document (document.ts checked its shape).
    const registrationMetadata = { ...rest, client_name } as Prisma.InputJsonObject;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await this.db.$transaction(async (tx): Promise<CimdOutcome> => {
          const row = await tx.client.findUnique({ where: { clientId } });
          if (!row) {
            await tx.client.create({
              data: {
                id: this.ids.uuid(),
                clientId,
                tenantId: null,
                resourceServerId: null,
                clientName: client_name,
                kind: "agent",
                registrationMode: "cimd",
                status: "approved",
                secretHash: null,
                tokenEndpointAuthMethod: token_endpoint_auth_method,
                redirectUris: redirect_uris,
                grantTypes: grant_types,
                allowedScopes: [],
                tokenLifetime: TOKEN_LIFETIME.default,
                metadataUrl: clientId,
                registrationMetadata,
                createdAt: now,
                updatedAt: now,
              },
            });
            return { ok: true };
          }
          if (row.registrationMode !== "cimd") return { ok: false, reason: "the client_id is registered otherwise" };
          const approved = row.redirectUris as string[];
          const staged = row.stagedRedirectUris as string[] | null;
          // A new set waits for approval; a document back at the approved set drops a staged change.
          const nextStaged = sameSet(redirect_uris, approved) ? null : redirect_uris;
          const stagedChanged = nextStaged === null ? staged !== null : staged === null || !sameSet(nextStaged, staged);
          // The document is the client's own statement of how it authenticates (none or
          // private_key_jwt with its keys, document.ts): a change takes effect with the document.
          const otherChanged =
            row.tokenEndpointAuthMethod !== token_endpoint_auth_method ||
            row.clientName !== client_name || !sameSet(row.grantTypes as string[], grant_types) || JSON.stringify(row.registrationMetadata) !== JSON.stringify(registrationMetadata);
          if (!stagedChanged && !otherChanged) return { ok: true }; // nothing to write: caches stay warm
          await tx.client.update({
            where: { id: row.id },
            data: {
              clientName: client_name,
              tokenEndpointAuthMethod: token_endpoint_auth_method,
              grantTypes: grant_types,
              registrationMetadata,
              stagedRedirectUris: nextStaged === null ? DbNull : nextStaged,
              updatedAt: now,
            },
          });
          return { ok: true };
        });
      } catch (e) {
        // Two first authorizations at once: the second pass updates the winner's row.
        if (!isUniqueViolation(e) || attempt > 0) throw e;
      }
    }
    return { ok: true };
  }
}
