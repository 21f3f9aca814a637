// The sections in the navigation, in order. A new section (Explain, identity providers...) is one
// feature folder plus one line in routes.tsx and, when it has a top-level screen, one line here.
export const navigation: { to: string; label: string; enrolOnly?: boolean }[] = [
  { to: "/applications", label: "Applications" },
  { to: "/clients", label: "Clients and connections" },
  { to: "/access-requests", label: "Access requests" },
  { to: "/people", label: "People and access" },
  { to: "/explain", label: "Explain" },
  { to: "/audit", label: "Audit trail" },
  { to: "/settings", label: "Settings", enrolOnly: true },
];
