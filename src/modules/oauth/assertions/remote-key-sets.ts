// The public keys of private_key_jwt clients that publish them at a jwks_uri (RFC 7591 §2), for
// client assertions (RFC 7523 §2.2). Fetched like a CIMD document (src/shared/outbound/fetch-json.ts:
// SSRF guard, pinned connection, no redirects, only 200, size cap, deadline), reused while the
// answer's Cache-Control max-age lasts within bounds; a failure is never remembered (the next
// assertion fetches again). A kid the cached set does not hold triggers one refetch, at most once
// a minute per URL, so a client that rotated its keys is picked up, and an attacker sending random
// kids cannot make us hammer the client's server. Bounded: the oldest URL is dropped past MAX_URLS.
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { Clock } from "../../../shared/clock";
import { fetchJsonDocument, type OutboundFetchOptions } from "../../../shared/outbound/fetch-json";
import { readPublicJwks } from "../../clients";

export const JWKS_MAX_BYTES = 16 * 1024;
export const JWKS_CACHE = { defaultSeconds: 300, maxSeconds: 86_400 } as const;
/** At most one refetch per URL in this window for a kid the cached set does not hold. */
export const JWKS_REFETCH_MS = 60_000;
const MAX_URLS = 1_000;

interface Entry {
  keys: JWTVerifyGetKey;
  fetchedAt: number;
  freshUntil: number;
}

/** A key set that could not be fetched or read (the reason goes to the log). */
export class KeySetUnavailable extends Error {}

export class RemoteKeySets {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly options: OutboundFetchOptions,
  ) {}

  /** A jose key resolver for the client's jwks_uri. */
  resolver(uri: string): JWTVerifyGetKey {
    return async (header, token) => {
      const entry = await this.current(uri);
      try {
        return await entry.keys(header, token);
      } catch (e) {
        if (!(e instanceof errors.JWKSNoMatchingKey) || this.clock.now().getTime() - entry.fetchedAt < JWKS_REFETCH_MS) throw e;
        return (await this.fetch(uri)).keys(header, token);
      }
    };
  }

  private async current(uri: string): Promise<Entry> {
    const entry = this.entries.get(uri);
    if (entry && entry.freshUntil > this.clock.now().getTime()) return entry;
    return this.fetch(uri);
  }

  private async fetch(uri: string): Promise<Entry> {
    const now = this.clock.now().getTime();
    const fetched = await fetchJsonDocument(new URL(uri), this.options, { maxBytes: JWKS_MAX_BYTES, reuse: JWKS_CACHE, what: "the jwks_uri document" });
    if (!fetched.ok) {
      this.entries.delete(uri);
      throw new KeySetUnavailable(fetched.reason);
    }
    const jwks = readPublicJwks(fetched.json);
    if (!jwks.ok) {
      this.entries.delete(uri);
      throw new KeySetUnavailable(`the jwks_uri document: ${jwks.reason}`);
    }
    // max-age 0 (no-store) still keeps the set as the "last fetched" one, so the refetch limit holds.
    const entry: Entry = { keys: createLocalJWKSet(jwks.value as JSONWebKeySet), fetchedAt: now, freshUntil: now + fetched.maxAgeSeconds * 1000 };
    this.entries.delete(uri);
    if (this.entries.size >= MAX_URLS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(uri, entry);
    return entry;
  }
}
