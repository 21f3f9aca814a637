// People and access, one tab each (?tab=): members of the workspace (role, status, add a user),
// end users (suspend, reactivate), groups (members, role bindings with expiry) and roles (grants).
import { useSearchParams } from "react-router";
import { useGraph } from "../../app/data";
import { ErrorAlert, Loading } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { PeopleDocument } from "../../graphql/generated/graphql";
import { EndUsersTab } from "./EndUsersTab";
import { GroupsTab } from "./GroupsTab";
import { MembersTab } from "./MembersTab";
import { RolesTab } from "./RolesTab";

export const PEOPLE_KEY = "people";
const TABS = [
  { id: "members", label: "Members" },
  { id: "end-users", label: "End users" },
  { id: "groups", label: "Groups" },
  { id: "roles", label: "Roles" },
] as const;

export function PeoplePage() {
  usePageTitle("People and access");
  const [params, setParams] = useSearchParams();
  const tab = TABS.find((t) => t.id === params.get("tab"))?.id ?? "members";
  const q = useGraph([PEOPLE_KEY], PeopleDocument, { first: 1000 });
  return (
    <>
      <h1>People and access</h1>
      <nav aria-label="People and access" className="tabs">
        {TABS.map((t) => (
          <a
            key={t.id}
            href={`?tab=${t.id}`}
            aria-current={t.id === tab ? "page" : undefined}
            onClick={(e) => {
              e.preventDefault();
              setParams({ tab: t.id });
            }}
          >
            {t.label}
          </a>
        ))}
      </nav>
      {q.isPending ? (
        <Loading what="people" />
      ) : q.error ? (
        <ErrorAlert error={q.error} />
      ) : tab === "members" ? (
        <MembersTab data={q.data} />
      ) : tab === "end-users" ? (
        <EndUsersTab data={q.data} />
      ) : tab === "groups" ? (
        <GroupsTab data={q.data} />
      ) : (
        <RolesTab data={q.data} />
      )}
    </>
  );
}
