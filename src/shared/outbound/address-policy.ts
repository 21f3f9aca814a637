// Which addresses a scan may connect to. Rescan is started by any workspace administrator with a
// URL of their choosing, so without this check Toolgate would connect, on their behalf, to its
// own loopback, the private network it runs in, or the cloud metadata service (SSRF), and the
// failure reason would tell them what answered there. Unless TOOLGATE_SCAN_ALLOW_PRIVATE is on,
// the scanner refuses every address in these ranges before it opens a connection.
// Not covered: tunnelling prefixes that embed an IPv4 address in another way than the mapped
// and NAT64 forms (6to4 2002::/16, Teredo 2001::/32), which reach a private IPv4 address only
// through a relay on the path; and whatever a public address forwards to on its own.
import { BlockList, isIP } from "node:net";

const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8], // RFC 1918
  ["100.64.0.0", 10], // carrier-grade NAT (RFC 6598)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, with the cloud metadata service at 169.254.169.254
  ["172.16.0.0", 12], // RFC 1918
  ["192.168.0.0", 16], // RFC 1918
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address 255.255.255.255
] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local (ULA), e.g. the metadata service at fd00:ec2::254
  ["fe80::", 10], // link-local
  ["fec0::", 10], // the former site-local
  ["ff00::", 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, "ipv6");
}
// An IPv6 address in the NAT64 well-known prefix reaches the IPv4 address in its last 32 bits.
const NAT64 = new BlockList();
NAT64.addSubnet("64:ff9b::", 96, "ipv6");
// IPv6 forms that only spell an IPv4 address: IPv4-compatible (::/96, deprecated by RFC 4291
// §2.5.5.1, e.g. [::7f00:1] or [::127.0.0.1]) and IPv4-mapped (::ffff:0:0/96, RFC 4291 §2.5.5.2,
// an API notation never meant for the wire). What a connection to one reaches depends on the
// host's network stack (a mapped address reaches the IPv4 host through a dual-stack socket, a
// compatible one is usually unroutable), so attempting them would tell a prober about the network
// by how they fail; and no server needs them (it has its IPv4 address). Refused before connecting,
// whatever TOOLGATE_SCAN_ALLOW_PRIVATE says.
// (:: and ::1, inside ::/96, are IPv6's own unspecified and loopback addresses: not public, no more.)
const IPV4_IN_IPV6 = new BlockList();
IPV4_IN_IPV6.addSubnet("::", 96, "ipv6");
IPV4_IN_IPV6.addSubnet("::ffff:0:0", 96, "ipv6");
const UNSPECIFIED_OR_LOOPBACK = new BlockList();
UNSPECIFIED_OR_LOOPBACK.addAddress("::", "ipv6");
UNSPECIFIED_OR_LOOPBACK.addAddress("::1", "ipv6");

const bare = (address: string) => address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, ""); // brackets of a URL host, an IPv6 zone

/** True when `address` is an IPv4-compatible or IPv4-mapped IPv6 address (::/96 but :: and ::1, ::ffff:0:0/96). */
export function isIpv4InIpv6Form(address: string): boolean {
  const ip = bare(address);
  return isIP(ip) === 6 && IPV4_IN_IPV6.check(ip, "ipv6") && !UNSPECIFIED_OR_LOOPBACK.check(ip, "ipv6");
}

/**
 * True when `address` (an IP literal, as a URL host or a DNS answer gives it) is loopback,
 * private, link-local, unspecified, multicast, reserved or carrier-grade NAT, or the NAT64 form of
 * such an IPv4 address, or any IPv4-compatible or IPv4-mapped IPv6 address (isIpv4InIpv6Form).
 * Anything that is not an IP address counts as not public.
 */
export function isNonPublicAddress(address: string): boolean {
  const ip = bare(address);
  const family = isIP(ip);
  if (family === 0) return true;
  if (family === 4) return NOT_PUBLIC.check(ip, "ipv4");
  if (isIpv4InIpv6Form(ip) || NOT_PUBLIC.check(ip, "ipv6")) return true;
  if (NAT64.check(ip, "ipv6")) return NOT_PUBLIC.check(embeddedIpv4(ip), "ipv4");
  return false;
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function embeddedIpv4(ip: string): string {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (dotted) return dotted[1]!;
  // Without "::" all eight groups are written; with it, the groups after "::" end the address
  // and a compressed zero group stands right before them.
  const compressed = ip.split("::");
  const groups = compressed.length === 2 ? compressed[1]!.split(":").filter(Boolean) : ip.split(":");
  const last = groups.slice(-2).map((g) => parseInt(g, 16));
  while (last.length < 2) last.unshift(0);
  const [hi, lo] = last as [number, number];
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
}
