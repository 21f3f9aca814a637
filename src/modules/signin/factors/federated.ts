// A sign-in through an upstream OpenID provider (src/modules/identity-providers): RFC 8176 "fed".
// What the provider itself did (its own amr/acr) is kept on the person's link to it and in the
// audit event; Toolgate does not count it as a second factor of its own.
import type { Factor } from "./types";

export const federatedFactor: Factor = { id: "fed", amr: ["fed"], kind: "federated", second: false, multiFactorAlone: false, phishingResistant: false };
