// Trusted ID-JAG issuers and workload identity trusts of a workspace (docs/enterprise-agents.md).
export { TrustService, toIdJagTrustView, toWorkloadTrustView, type IdJagTrustView, type WorkloadTrustView } from "./trust-service";
export { TrustRegistry, spiffeTrustDomain, ruleFor, type IdJagTrustFacts, type WorkloadTrustFacts, type TrustKeys, type WorkspaceTrusts } from "./registry";
export { IdJagSubjects, type SubjectResolution } from "./subjects";
export { TRUST_ALGS, SUBJECT_CLAIMS, createIdJagTrustSchema, updateIdJagTrustSchema, createWorkloadTrustSchema, trustIdParams, type CreateIdJagTrustInput, type UpdateIdJagTrustInput, type CreateWorkloadTrustInput, type WorkloadRule, type SubjectClaim } from "./schemas";
