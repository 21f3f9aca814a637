// Signing keys: created on first start, stored encrypted, imported once into memory (the hot
// paths never read the database for keys), reloaded when a write to the key table is announced on
// the change bus (another instance, or the CLI's `keys rotate`). The table is small by construction:
// it is the one thing loaded whole (docs/decisions/0001-per-entry-caches.md).
import { createPrivateKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, calculateJwkThumbprint, type JWK, type CryptoKey } from "jose";
import type { ChangeBus, Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import { decryptAtRest, encryptAtRest } from "../../shared/crypto";
import { coalescedReload } from "../../shared/coalesced-reload";
import { publishedKeysAt, signingKeyAt } from "./key-schedule";

export const SIGNING_ALG = "ES256";

interface LoadedKey {
  kid: string;
  activatedAt: Date;
  publicJwk: JWK;
  privateKey: CryptoKey;
  /** The same private key for node:crypto's synchronous sign (see JwtService.sign). */
  privateKeyObject: KeyObject;
  publicKey: CryptoKey;
}

export interface RotateResult {
  kid: string;
  activates_at: string;
}

export class KeyStore {
  private keys: LoadedKey[] = [];
  private byKid = new Map<string, LoadedKey>();

  constructor(
    private readonly db: Db,
    private readonly encryptionKey: Buffer,
    private readonly clock: Clock,
    bus: ChangeBus,
    private readonly onReloadError: (e: unknown) => void = () => undefined,
  ) {
    const reload = () => void this.load().catch(this.onReloadError);
    bus.subscribe("keys", { invalidate: reload, clear: reload });
    bus.onReset(() => this.load());
  }

  /** Loads every key; creates the first one when the installation has none. */
  async init(): Promise<void> {
    await this.load();
    if (this.keys.length === 0) {
      await this.createKey(this.clock.now());
      await this.load();
    }
  }

  /** Loads every key, importing only new ones (coalesced: see shared/coalesced-reload.ts). */
  readonly load = coalescedReload(() => this.loadNow());

  private async loadNow(): Promise<void> {
    const rows = await this.db.signingKey.findMany();
    const loaded: LoadedKey[] = [];
    for (const row of rows) {
      const cached = this.byKid.get(row.kid);
      if (cached) {
        loaded.push(cached);
        continue;
      }
      const privateJwk = JSON.parse(decryptAtRest(this.encryptionKey, row.privateJwkEnc, row.kid)) as JWK;
      const publicJwk = JSON.parse(row.publicJwk) as JWK;
      const privateKey = (await importJWK(privateJwk, row.alg)) as CryptoKey;
      loaded.push({
        kid: row.kid,
        activatedAt: row.activatedAt,
        publicJwk,
        privateKey,
        // From the JWK itself: KeyObject.from() of a non-extractable CryptoKey is deprecated (DEP0204, Node 24).
        privateKeyObject: createPrivateKey({ key: privateJwk as JsonWebKey, format: "jwk" }),
        publicKey: (await importJWK(publicJwk, row.alg)) as CryptoKey,
      });
    }
    this.keys = loaded;
    this.byKid = new Map(loaded.map((k) => [k.kid, k]));
  }

  /** Adds a key that is published at once and starts signing after `leadSeconds`. */
  async rotate(leadSeconds: number): Promise<RotateResult> {
    const activatesAt = new Date(this.clock.now().getTime() + leadSeconds * 1000);
    const kid = await this.createKey(activatesAt);
    await this.load();
    return { kid, activates_at: activatesAt.toISOString() };
  }

  private async createKey(activatedAt: Date): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk); // RFC 7638: stable, content-derived kid
    const privateJwk = await exportJWK(privateKey);
    await this.db.$transaction(async (tx) => {
      await tx.signingKey.create({
        data: {
          kid,
          alg: SIGNING_ALG,
          publicJwk: JSON.stringify({ ...publicJwk, kid, alg: SIGNING_ALG, use: "sig" }),
          privateJwkEnc: encryptAtRest(this.encryptionKey, JSON.stringify(privateJwk), kid),
          createdAt: this.clock.now(),
          activatedAt,
        },
      });
    });
    return kid;
  }

  signingKey(): { kid: string; key: CryptoKey } {
    const k = signingKeyAt(this.keys, this.clock.now());
    if (!k) throw new Error("no active signing key");
    return { kid: k.kid, key: k.privateKey };
  }

  /** The signing key as a node:crypto KeyObject (the token endpoint signs synchronously with it). */
  signingKeyObject(): { kid: string; key: KeyObject } {
    const k = signingKeyAt(this.keys, this.clock.now());
    if (!k) throw new Error("no active signing key");
    return { kid: k.kid, key: k.privateKeyObject };
  }

  verificationKey(kid: string | undefined): CryptoKey | undefined {
    if (!kid) return undefined;
    const k = this.byKid.get(kid);
    if (!k) return undefined;
    // Only keys that are still published verify: a key past its publication window is dead.
    return publishedKeysAt(this.keys, this.clock.now()).includes(k) ? k.publicKey : undefined;
  }

  /** The schedule of every stored key, for `toolgate keys list`. */
  describe(): { kid: string; activates_at: string; signing: boolean; published: boolean }[] {
    const now = this.clock.now();
    const signing = signingKeyAt(this.keys, now);
    const published = new Set(publishedKeysAt(this.keys, now));
    return this.keys
      .map((k) => ({ kid: k.kid, activates_at: k.activatedAt.toISOString(), signing: k === signing, published: published.has(k) }))
      .sort((a, b) => a.activates_at.localeCompare(b.activates_at));
  }

  /** RFC 7517 key set of every published key. */
  jwks(): { keys: JWK[] } {
    return { keys: publishedKeysAt(this.keys, this.clock.now()).map((k) => k.publicJwk) };
  }
}
