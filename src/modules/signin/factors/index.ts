// Every way to sign in, and what a set of used factors amounts to: the `amr` and `acr` of ID tokens
// and admin JWTs (docs/decisions/0036-sessions-and-factors.md). To add a factor: a file beside this
// one exporting a Factor, and one line in FACTORS.
import { federatedFactor } from "./federated";
import { passkeyFactor } from "./passkey";
import { passwordFactor } from "./password";
import { recoveryCodeFactor } from "./recovery-code";
import { totpFactor } from "./totp";
import type { Factor } from "./types";

export const FACTORS: readonly Factor[] = [passwordFactor, totpFactor, recoveryCodeFactor, passkeyFactor, federatedFactor];

export type { Factor, FactorKind } from "./types";
export { passwordFactor, totpFactor, recoveryCodeFactor, passkeyFactor, federatedFactor };

const byId = new Map(FACTORS.map((f) => [f.id, f]));

/** The factors of these ids (unknown ids, e.g. of a factor removed since, are skipped). */
export function factorsOf(ids: readonly string[]): Factor[] {
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Whether the factors used add up to multi-factor authentication. */
export function isMultiFactor(ids: readonly string[]): boolean {
  const used = factorsOf(ids);
  return used.some((f) => f.multiFactorAlone) || new Set(used.map((f) => f.kind)).size >= 2;
}

/** RFC 8176 `amr`: every used factor's values, plus "mfa" when they add up to it; in a stable order. */
export function amrOf(ids: readonly string[]): string[] {
  const values = new Set(factorsOf(ids).flatMap((f) => f.amr));
  if (isMultiFactor(ids)) values.add("mfa");
  return [...values].sort();
}

/**
 * Authentication context class (OIDC Core §2 `acr`), from the weakest to the strongest:
 * "urn:toolgate:acr:1fa" one factor, "urn:toolgate:acr:mfa" multi-factor, "phr" phishing-resistant
 * multi-factor (the OpenID EAP ACR Values name, a passkey).
 */
export const ACR_VALUES = ["urn:toolgate:acr:1fa", "urn:toolgate:acr:mfa", "phr"] as const;

export function acrOf(ids: readonly string[]): (typeof ACR_VALUES)[number] {
  if (!isMultiFactor(ids)) return ACR_VALUES[0];
  return factorsOf(ids).some((f) => f.phishingResistant && f.multiFactorAlone) ? ACR_VALUES[2] : ACR_VALUES[1];
}
