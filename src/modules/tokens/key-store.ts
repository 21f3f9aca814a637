// Signing keys: created on first start, stored encrypted, imported once into memory (the hot
// paths never read the database for keys), reloaded when a write to the key table is announced on
// the change bus (another instance, or the CLI's `keys rotate`). The table is small by construction:
// it is the one thing loaded whole (docs/decisions/0001-per-entry-caches.md).
// Each algorithm has its own schedule (key-schedule.ts): ES256 signs access tokens, admin tokens
// and ID tokens by default; RS256 signs the ID tokens of clients that ask for it (OIDC Discovery
// requires RS256 support; docs/decisions/0035-openid-provider.md). Both are published in the JWKS
// and rotated with `toolgate keys rotate [--alg RS256]`.
import { createPrivateKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, calculateJwkThumbprint, type JWK, type CryptoKey } from "jose";
import { recordAuditEvent, type ChangeBus, type Db } from "../../storage";

/** The audit action of a rotation (modules/audit/actions.ts; the tokens module does not depend on audit, which depends on it). */
const ROTATED = "signing_key.rotated";
import type { Clock } from "../../shared/clock";
import { decryptAtRest, encryptAtRest } from "../../shared/crypto";
import { coalescedReload } from "../../shared/coalesced-reload";
import { publishedKeysAt, signingKeyAt } from "./key-schedule";

export const SIGNING_ALG = "ES256";
/** Every algorithm this server keeps a signing key for (the first is the default). */
export const SIGNING_ALGS = ["ES256", "RS256"] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

interface LoadedKey {
  kid: string;
  alg: SigningAlg;
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
  private byAlg = new Map<SigningAlg, LoadedKey[]>();

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

  /** Loads every key; creates the first one of each algorithm the installation has none of. */
  async init(): Promise<void> {
    await this.load();
    const missing = SIGNING_ALGS.filter((alg) => !this.keys.some((k) => k.alg === alg));
    if (missing.length === 0) return;
    for (const alg of missing) await this.createKey(this.clock.now(), alg);
    await this.load();
  }

  /** The keys of one algorithm (computed at load: the hot paths ask on every token). */
  private ofAlg(alg: SigningAlg): LoadedKey[] {
    return this.byAlg.get(alg) ?? [];
  }

  private published(now: Date): LoadedKey[] {
    return SIGNING_ALGS.flatMap((alg) => publishedKeysAt(this.ofAlg(alg), now));
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
        alg: row.alg as SigningAlg,
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
    this.byAlg = new Map(SIGNING_ALGS.map((alg) => [alg, loaded.filter((k) => k.alg === alg)]));
  }

  /** Adds a key of `alg` that is published at once and starts signing after `leadSeconds`. */
  async rotate(leadSeconds: number, alg: SigningAlg = SIGNING_ALG): Promise<RotateResult> {
    const activatesAt = new Date(this.clock.now().getTime() + leadSeconds * 1000);
    const kid = await this.createKey(activatesAt, alg, ROTATED);
    await this.load();
    return { kid, activates_at: activatesAt.toISOString() };
  }

  private async createKey(activatedAt: Date, alg: SigningAlg, action?: string): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk); // RFC 7638: stable, content-derived kid
    const privateJwk = await exportJWK(privateKey);
    await this.db.$transaction(async (tx) => {
      await tx.signingKey.create({
        data: {
          kid,
          alg,
          publicJwk: JSON.stringify({ ...publicJwk, kid, alg, use: "sig" }),
          privateJwkEnc: encryptAtRest(this.encryptionKey, JSON.stringify(privateJwk), kid),
          createdAt: this.clock.now(),
          activatedAt,
        },
      });
      // The audit trail's name for it (the first key's creation is recorded as signing_key.created).
      if (action) await recordAuditEvent(tx, { action, target: { type: "signing_key", id: kid }, workspaceId: null, detail: { alg, activates_at: activatedAt.toISOString() } });
    });
    return kid;
  }

  signingKey(alg: SigningAlg = SIGNING_ALG): { kid: string; key: CryptoKey } {
    const k = signingKeyAt(this.ofAlg(alg), this.clock.now());
    if (!k) throw new Error(`no active ${alg} signing key`);
    return { kid: k.kid, key: k.privateKey };
  }

  /** The signing key as a node:crypto KeyObject (the token endpoint signs with it, off the event loop). */
  signingKeyObject(alg: SigningAlg = SIGNING_ALG): { kid: string; key: KeyObject } {
    const k = signingKeyAt(this.ofAlg(alg), this.clock.now());
    if (!k) throw new Error(`no active ${alg} signing key`);
    return { kid: k.kid, key: k.privateKeyObject };
  }

  /** The public key of a published key of `alg` (access and admin tokens: ES256 only). */
  verificationKey(kid: string | undefined, alg: SigningAlg = SIGNING_ALG): CryptoKey | undefined {
    if (!kid) return undefined;
    const k = this.byKid.get(kid);
    if (!k || k.alg !== alg) return undefined;
    // Only keys that are still published verify: a key past its publication window is dead.
    return publishedKeysAt(this.ofAlg(alg), this.clock.now()).includes(k) ? k.publicKey : undefined;
  }

  /** The schedule of every stored key, for `toolgate keys list`. */
  describe(): { kid: string; alg: string; activates_at: string; signing: boolean; published: boolean }[] {
    const now = this.clock.now();
    const signing = new Set(SIGNING_ALGS.map((alg) => signingKeyAt(this.ofAlg(alg), now)));
    const published = new Set(this.published(now));
    return this.keys
      .map((k) => ({ kid: k.kid, alg: k.alg, activates_at: k.activatedAt.toISOString(), signing: signing.has(k), published: published.has(k) }))
      .sort((a, b) => a.activates_at.localeCompare(b.activates_at));
  }

  /** RFC 7517 key set of every published key. */
  jwks(): { keys: JWK[] } {
    return { keys: this.published(this.clock.now()).map((k) => k.publicJwk) };
  }
}
