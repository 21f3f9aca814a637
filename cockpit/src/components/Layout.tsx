// The frame of every signed-in screen: a skip link, the banner (workspace switcher, role, sign
// out), the navigation, and one <main> whose page supplies the only <h1>.
import { Suspense } from "react";
import { NavLink, Outlet, useNavigate } from "react-router";
import { useSession, useSignedIn } from "../app/session";
import { navigation } from "../routes-nav";
import { Loading } from "./ErrorAlert";

function WorkspaceSwitcher() {
  const { workspaces, switchTo } = useSession();
  const s = useSignedIn();
  const navigate = useNavigate();
  return (
    <div className="switcher">
      <label htmlFor="workspace-switcher">Workspace</label>
      <select
        id="workspace-switcher"
        value={s.workspaceId}
        onChange={(e) => {
          const id = e.target.value;
          if (id === "__other") return void navigate("/signin?another=1");
          // Signed in there during this visit: switch at once; otherwise sign in to it.
          if (!switchTo(id)) navigate(`/signin?workspace=${encodeURIComponent(id)}`);
          else navigate("/applications");
        }}
      >
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
            {w.signedIn ? "" : " (sign in)"}
          </option>
        ))}
        <option value="__other">Another workspace…</option>
      </select>
    </div>
  );
}

export function Layout() {
  const s = useSignedIn();
  const { signOut } = useSession();
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="banner">
        <span className="brand">Toolgate</span>
        {!s.enrolOnly && <WorkspaceSwitcher />}
        <span className="who">
          {s.enrolOnly ? "Second factor required" : <>Signed in as <strong>{s.role?.replace("_", " ")}</strong></>}
        </span>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <nav aria-label="Sections" className="sidebar">
        <ul>
          {navigation
            .filter((n) => !s.enrolOnly || n.enrolOnly)
            .map((n) => (
              <li key={n.to}>
                <NavLink to={n.to}>{n.label}</NavLink>
              </li>
            ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading what="the screen" />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
