// The first step of every outbound request to a URL someone else chose (a scan's MCP server, a
// CIMD client's metadata document, a client's jwks_uri): resolve the host once, refuse when any
// address is an IPv4 address in IPv6 form (always) or not public (unless private networks are
// allowed, TOOLGATE_SCAN_ALLOW_PRIVATE; address-policy.ts), and hand back the checked addresses
// for a PinnedConnection (pinned-fetch.ts), so the connection goes where the check looked (DNS
// rebinding).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isIpv4InIpv6Form, isNonPublicAddress } from "./address-policy";
import type { PinnedAddress } from "./pinned-fetch";

/** A refused or failed resolution; `reason` is safe to show (a name's DNS answer is never echoed). */
export class OutboundRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "OutboundRefused";
  }
}

/**
 * Resolves the URL's host (every address, in the system resolver's order). A host with one public
 * and one private address is refused too, since the answer could be chosen to reach the private one.
 */
export async function resolveAllowed(target: URL, allowPrivate: boolean, allowVariable = "TOOLGATE_SCAN_ALLOW_PRIVATE"): Promise<PinnedAddress[]> {
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch (e) {
    throw new OutboundRefused(`connection failed: ${(e as { code?: string }).code ?? "the host name cannot be resolved"}`);
  }
  const first = addresses[0];
  if (!first) throw new OutboundRefused("connection failed: the host name has no address");
  // A literal address is the caller's own input; a name's DNS answer is not echoed.
  const what = isIP(host) ? `the address ${host}` : `the address of ${host}`;
  if (addresses.some((a) => isIpv4InIpv6Form(a.address))) throw new OutboundRefused(`${what} is not allowed (an IPv4 address in IPv6 form; use the IPv4 address)`);
  if (!allowPrivate && addresses.some((a) => isNonPublicAddress(a.address))) {
    throw new OutboundRefused(`${what} is not allowed (private network); set ${allowVariable}=1 to allow`);
  }
  return addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}
