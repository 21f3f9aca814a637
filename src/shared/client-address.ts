// One client address per counter: the login throttle and the registration rate limit count per
// address, and must agree on what an address is.
import { isIP } from "node:net";

/**
 * The address a count is kept for (req.ip, which honours TOOLGATE_TRUST_PROXY): IPv4 as is (IPv4-mapped IPv6 unwrapped), IPv6 by its /64
 * (one host usually holds a whole /64, so counting single IPv6 addresses would be no limit at all).
 */
export function normaliseAddress(raw: string | undefined): string {
  if (!raw) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(raw);
  if (mapped) return mapped[1]!;
  if (isIP(raw) !== 6) return raw;
  const [head = "", tail = ""] = raw.toLowerCase().split("%")[0]!.split("::");
  const left = head ? head.split(":") : [];
  const right = raw.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = raw.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

