// A throwaway self-signed certificate for https servers on loopback in tests (127.0.0.1 and
// localhost), made with the openssl command line. Toolgate trusts it through
// TOOLGATE_OUTBOUND_CA_FILE; the system's roots are untouched.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCertificate {
  key: string;
  cert: string;
  /** The certificate's PEM file (for TOOLGATE_OUTBOUND_CA_FILE). */
  certFile: string;
}

export function loopbackCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-tls-"));
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", keyFile, "-out", certFile],
    { stdio: "ignore" },
  );
  return { key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8"), certFile };
}
