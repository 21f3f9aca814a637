// What the OAuth endpoints report about their answers, for operators (the metrics module
// implements it; docs/decisions/0023-metrics-endpoint.md). Called once per answer from the
// domain services, never from router code; must be cheap (counters) and must not throw.
export interface OAuthOutcomes {
  /** One token endpoint answer: `outcome` is "issued" or the OAuth error code sent. */
  tokenAnswered(grantType: string | undefined, outcome: string): void;
  /** One introspection answer to an authenticated resource server, from cache or after loading. */
  introspectionAnswered(active: boolean, fromCache: boolean): void;
}

export const NO_OAUTH_OUTCOMES: OAuthOutcomes = { tokenAnswered: () => undefined, introspectionAnswered: () => undefined };

/**
 * Security events of the token endpoint for the audit trail: counted, never written per request
 * (the audit module's SecurityCounters; docs/decisions/0038-audit-trail.md). Must be O(1) and not throw.
 */
export interface TokenEvents {
  issued(clientId: string, workspaceId: string | null, grantType: string): void;
}

export const NO_TOKEN_EVENTS: TokenEvents = { issued: () => undefined };
