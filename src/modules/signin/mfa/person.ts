// The person managing their own sign-in (second factors, passkeys, sessions, consents): a user of
// one workspace, identified by an admin JWT of theirs or by their browser session. The first
// argument of every self-service method, as the Actor is of the admin services.
export interface Person {
  tenantId: string;
  userId: string;
}

/** Where an attempt comes from (the HTTP layer's client address), for the sign-in throttle. */
export interface AttemptSource {
  address: string;
}

/**
 * The sign-in throttle around a code check (tenancy's LoginThrottle, docs/decisions/0022): one
 * allowance per account covers the password and the one-time codes. `check` runs only when the
 * account and address may try now; a throttled attempt throws too_many_requests before it.
 */
export type ThrottledCheck = <T>(person: Person, source: AttemptSource, check: () => Promise<T | null>) => Promise<T | null>;
