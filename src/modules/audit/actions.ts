// The names of audit events that are not a row's creation, update or deletion (those are derived
// by the unit of work: `<entity>.created|updated|deleted`, src/storage/audit-capture.ts). One list,
// so the webhook event types, the docs and the tests read the same names. Stages of an access
// decision (why a token or a tool was refused) use the resolver's vocabulary of checks
// (DESIGN "Identity and explanation"); these name what happened.
export const AUDIT_ACTIONS = {
  /** A password (or, later, another factor) sign-in succeeded / failed; detail.factor names it. */
  signInSucceeded: "signin.succeeded",
  signInFailed: "signin.failed",
  /** Counted, not per request (security-counters.ts): tokens issued and refused per client, grant and reason. */
  tokensIssued: "token.issued",
  tokenRefused: "token.refused",
  /** A client (token or revocation endpoint) or a resource server (introspection) failed to authenticate; counted. */
  clientAuthenticationFailed: "client.authentication_failed",
  resourceServerAuthenticationFailed: "resource_server.authentication_failed",
  /** Sign-in attempts refused by the throttle before any password check; counted. */
  signInThrottled: "signin.throttled",
  registrationRefused: "registration.refused",
  cimdFetchRefused: "cimd.fetch_refused",
  connectionRevoked: "connection.revoked",
  resourceServerActivated: "resource_server.activated",
  resourceServerDeleted: "resource_server.deleted",
  toolScopeMapReplaced: "tool_scope_map.replaced",
  clientRevoked: "client.revoked",
  clientSecretRotated: "client.secret_rotated",
  introspectionSecretRotated: "resource_server.secret_rotated",
  signingKeyRotated: "signing_key.rotated",
  passwordReset: "user.password_reset",
  agentDisabled: "agent.disabled",
  agentEnabled: "agent.enabled",
  agentAccessReplaced: "agent.access_replaced",
  webhookTestSent: "webhook.test_sent",
  webhookRedelivered: "webhook.redelivered",
  auditPruned: "audit.pruned",
  /** A signed evidence export of an application's access was made (modules/evidence). */
  evidenceExported: "evidence_export.created",
  idJagTrustCreated: "id_jag_trust.created",
  idJagTrustUpdated: "id_jag_trust.updated",
  workloadTrustCreated: "workload_trust.created",
  accessRequestApproved: "access_request.approved",
  /** The first connection of a member of a trust's auto-approve groups, approved by the system. */
  accessRequestAutoApproved: "access_request.auto_approved",
  accessRequestDenied: "access_request.denied",
  agentConnectionRevoked: "agent_connection.revoked",
} as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[keyof typeof AUDIT_ACTIONS];
