import { useEffect } from "react";

/** The document title follows the screen (announced by screen readers on navigation). */
export function usePageTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Toolgate cockpit`;
  }, [title]);
}
