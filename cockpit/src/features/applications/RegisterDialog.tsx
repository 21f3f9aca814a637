// Register an MCP server: name, public base URL, protected path, scopes. The answer holds the
// introspection secret, shown once with a copy button and the toolgate/sdk snippet filled in.
import { useState } from "react";
import { Link } from "react-router";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useGraphMutation } from "../../app/data";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert } from "../../components/ErrorAlert";
import { CopyButton, SecretOnce } from "../../components/SecretOnce";
import { TextField } from "../../components/TextField";
import { RegisterApplicationDocument, type RegisterApplicationMutation } from "../../graphql/generated/graphql";
import { sdkSnippet, secretEnvLine } from "./sdk-snippet";
import { toApplication } from "./routes";

const FIELDS = ["name", "publicBaseUrl", "protectedBasePath", "scopesSupported"] as const;

export function RegisterDialog({ onClose }: { onClose: () => void }) {
  const register = useGraphMutation(RegisterApplicationDocument, [["applications"]]);
  const [done, setDone] = useState<RegisterApplicationMutation["registerResourceServer"] | null>(null);
  if (done) {
    const rs = done.resourceServer;
    const snippet = sdkSnippet({ issuer: rs.endpoints.issuerUrl, id: rs.id, resourceUrl: rs.resourceUrl });
    return (
      <Dialog title={`${rs.name} registered`} onClose={onClose} wide>
        <SecretOnce label="Introspection secret" secret={done.introspectionSecret} />
        <h3>Put your server behind Toolgate</h3>
        <p>
          Start it with the secret in its environment, then add these lines (<code>toolgate/sdk</code>, see docs/sdk.md):
        </p>
        <pre className="code" aria-label="Environment">
          {secretEnvLine(done.introspectionSecret)}
        </pre>
        <pre className="code" aria-label="toolgate/sdk snippet" data-testid="sdk-snippet">
          {snippet}
        </pre>
        <CopyButton text={`${secretEnvLine(done.introspectionSecret)}\n\n${snippet}`} label="Copy snippet" />
        <div className="actions">
          <Link to={toApplication(rs.id)} className="button button-primary" onClick={onClose}>
            Open {rs.name}
          </Link>
        </div>
      </Dialog>
    );
  }
  const e = register.error;
  return (
    <Dialog title="Register an MCP server" onClose={onClose}>
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          const f = new FormData(ev.currentTarget);
          const scopes = String(f.get("scopesSupported") ?? "")
            .split(/[\s,]+/)
            .filter(Boolean);
          register.mutate(
            { input: { name: String(f.get("name")), publicBaseUrl: String(f.get("publicBaseUrl")), protectedBasePath: String(f.get("protectedBasePath")), scopesSupported: scopes } },
            { onSuccess: (r) => setDone(r.registerResourceServer) },
          );
        }}
      >
        <TextField label="Name" name="name" required error={fieldErrorOf(e, "name")} />
        <TextField label="Public base URL" name="publicBaseUrl" type="url" placeholder="https://notes.example.com" required error={fieldErrorOf(e, "publicBaseUrl")} />
        <TextField label="Protected path" name="protectedBasePath" defaultValue="/mcp" required hint="The MCP endpoint's path; with the base URL it is the tokens' audience." error={fieldErrorOf(e, "protectedBasePath")} />
        <TextField label="Scopes (optional)" name="scopesSupported" hint="Space-separated, e.g. notes:read notes:write. More can be added later." error={fieldErrorOf(e, "scopesSupported")} />
        <ErrorAlert error={formErrorOf(e, FIELDS)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={register.isPending}>
            Register
          </button>
        </div>
      </form>
    </Dialog>
  );
}
