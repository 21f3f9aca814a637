import { Link } from "react-router";
import { usePageTitle } from "./Page";

export function NotFound() {
  usePageTitle("Not found");
  return (
    <>
      <h1>Not found</h1>
      <p>
        Nothing lives at this address in the cockpit. <Link to="/applications">Go to the applications</Link>.
      </p>
    </>
  );
}
