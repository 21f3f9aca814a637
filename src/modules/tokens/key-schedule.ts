// Which signing key signs now, and which keys are published, computed from activation times only.
// A rotated-in key is inserted with activatedAt in the future, so it is in the JWKS before it signs
// anything (relying parties refresh their key cache before meeting its kid). A key superseded at
// time T may have signed a token up to T, valid for at most MAX_TOKEN_LIFETIME_S, so it stays
// published until T + that lifetime (+ clock skew).

export interface ScheduledKey {
  kid: string;
  activatedAt: Date;
}

/** Longest lifetime of anything we sign (client token_lifetime max 86400 s) plus 5 min skew. */
export const MAX_TOKEN_LIFETIME_S = 86_400 + 300;

export function signingKeyAt<K extends ScheduledKey>(keys: K[], now: Date): K | undefined {
  let best: K | undefined;
  for (const k of keys) {
    if (k.activatedAt.getTime() <= now.getTime() && (!best || k.activatedAt.getTime() > best.activatedAt.getTime())) best = k;
  }
  return best;
}

export function publishedKeysAt<K extends ScheduledKey>(keys: K[], now: Date): K[] {
  const sorted = [...keys].sort((a, b) => a.activatedAt.getTime() - b.activatedAt.getTime());
  return sorted.filter((k, i) => {
    const successor = sorted.slice(i + 1).find((s) => s.activatedAt.getTime() <= now.getTime());
    if (!successor) return true; // signing now, or not yet active
    return successor.activatedAt.getTime() + MAX_TOKEN_LIFETIME_S * 1000 > now.getTime();
  });
}
