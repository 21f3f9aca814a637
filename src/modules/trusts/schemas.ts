// Input of /svc/oocmgr/id-jag-trusts and /svc/spire/trust-domains (zod, strict): identity
// providers trusted to issue ID-JAGs for the workspace, and workload identity trusts
// (docs/enterprise-agents.md, docs/decisions/0047-id-jag-trusts.md, 0048-workload-identity.md).
import { z } from "zod";
import { readPublicJwks } from "../clients";
import { strictUrl } from "../../shared/urls";

/** Asymmetric JWS algorithms only: never `none`, never HMAC (a shared secret is not an issuer's signature). */
export const TRUST_ALGS = ["ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"] as const;
export const SUBJECT_CLAIMS = ["sub", "sub_id", "email"] as const;
export type SubjectClaim = (typeof SUBJECT_CLAIMS)[number];

const nameSchema = z.string().trim().min(1, "must not be empty").max(200);
const issuerSchema = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((v) => strictUrl(v, { schemes: ["https:", "http:"], allowQuery: false }).ok, "must be an absolute http(s) URL without query or fragment");
const jwksUriSchema = z
  .string()
  .max(2048)
  .refine((v) => strictUrl(v, { schemes: ["https:"], allowQuery: true }).ok, "must be an https URL");
const jwksSchema = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const r = readPublicJwks(v);
  if (!r.ok) ctx.addIssue({ code: "custom", message: r.reason });
});
const algsSchema = z
  .array(z.enum(TRUST_ALGS, { message: `must be asymmetric: one of ${TRUST_ALGS.join(", ")}` }))
  .min(1)
  .max(TRUST_ALGS.length)
  .refine((a) => new Set(a).size === a.length, "must not repeat an algorithm");

const oneKeySource = (v: { jwks_uri?: string | null; jwks?: unknown }) => (v.jwks_uri == null) !== (v.jwks == null);
const KEY_SOURCE_MESSAGE = "exactly one of jwks_uri and jwks";

/** Groups of the workspace whose members' first connection is approved at once (an empty list: none). */
const autoApproveGroupsSchema = z
  .array(z.string().uuid("must be a group id (UUID)"))
  .max(100)
  .refine((a) => new Set(a).size === a.length, "must not repeat a group");

export const createIdJagTrustSchema = z
  .object({
    name: nameSchema,
    /** Create from an upstream provider of /svc/oocmgr/providers: its issuer and jwks_uri (instead of issuer and keys). */
    provider_id: z.string().uuid("must be a provider id (UUID)").optional(),
    issuer: issuerSchema.optional(),
    jwks_uri: jwksUriSchema.optional(),
    jwks: jwksSchema.optional(),
    allowed_algs: algsSchema.default(["ES256", "RS256"]),
    clock_skew_s: z.number().int().min(0).max(300).default(30),
    max_assertion_lifetime_s: z.number().int().min(30).max(86_400).default(600),
    subject_claim: z.enum(SUBJECT_CLAIMS).default("sub"),
    jit_create_users: z.boolean().default(false),
    tenant: z.string().trim().min(1).max(200).optional(),
    auto_approve_group_ids: autoApproveGroupsSchema.default([]),
  })
  .strict()
  .refine((v) => v.provider_id === undefined || (v.issuer === undefined && v.jwks_uri === undefined && v.jwks === undefined), {
    message: "with provider_id, the issuer and keys are the provider's: give none of issuer, jwks_uri, jwks",
    path: ["provider_id"],
  })
  .refine((v) => v.provider_id !== undefined || v.issuer !== undefined, { message: "required (or provider_id)", path: ["issuer"] })
  .refine((v) => v.provider_id !== undefined || oneKeySource(v), { message: KEY_SOURCE_MESSAGE, path: ["jwks_uri"] });
export type CreateIdJagTrustInput = z.infer<typeof createIdJagTrustSchema>;

/** PATCH /svc/oocmgr/id-jag-trusts/:id: the auto-approval setting. */
export const updateIdJagTrustSchema = z.object({ auto_approve_group_ids: autoApproveGroupsSchema }).strict();
export type UpdateIdJagTrustInput = z.infer<typeof updateIdJagTrustSchema>;

/** A subject rule: an exact subject, or a pattern where `*` matches any run of characters except `/`. */
const ruleSchema = z
  .object({
    subject: z.string().min(1).max(2048).optional(),
    pattern: z.string().min(1).max(2048).optional(),
    client_id: z.string().min(1).max(2048),
  })
  .strict()
  .refine((r) => (r.subject === undefined) !== (r.pattern === undefined), "exactly one of subject and pattern");
export type WorkloadRule = z.infer<typeof ruleSchema>;

export const createWorkloadTrustSchema = z
  .object({
    name: nameSchema,
    issuer: issuerSchema.optional(),
    trust_domain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9._-]{1,255}$/, "must be a SPIFFE trust domain name (letters, digits, dots, dashes, underscores)")
      .optional(),
    jwks_uri: jwksUriSchema.optional(),
    jwks: jwksSchema.optional(),
    audience: z.string().trim().min(1).max(2048),
    allowed_algs: algsSchema.default(["ES256", "RS256"]),
    clock_skew_s: z.number().int().min(0).max(300).default(30),
    max_lifetime_s: z.number().int().min(30).max(86_400).default(3600),
    rules: z.array(ruleSchema).min(1).max(200),
  })
  .strict()
  .refine(oneKeySource, { message: KEY_SOURCE_MESSAGE, path: ["jwks_uri"] })
  .refine((v) => v.issuer !== undefined || v.trust_domain !== undefined, { message: "at least one of issuer and trust_domain", path: ["issuer"] });
export type CreateWorkloadTrustInput = z.infer<typeof createWorkloadTrustSchema>;

export const trustIdParams = z.object({ id: z.string().uuid("must be a UUID") });
