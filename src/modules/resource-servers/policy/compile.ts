// The scope-matrix rule (spec "Tool, scope and scope matrix"), as one pure function shared by the
// admin matrix, the activation preview and the runtime policy, so all three always agree:
//   public tool          -> []            (anyone may call it)
//   tool with scopes     -> [scope ids]   (sorted, so the document and its ETag are stable)
//   any other tool       -> absent        (denied once a policy is in effect)
export interface PolicyTool {
  name: string;
  isPublic: boolean;
  scopeKeys: string[];
}

export type ScopeMatrix = Record<string, string[]>;

export function compileScopeMatrix(tools: readonly PolicyTool[]): ScopeMatrix {
  const entries: [string, string[]][] = [];
  for (const t of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (t.isPublic) entries.push([t.name, []]);
    else if (t.scopeKeys.length > 0) entries.push([t.name, [...t.scopeKeys].sort()]);
  }
  // fromEntries defines own properties, so a tool named "__proto__" stays an ordinary key.
  return Object.fromEntries(entries);
}

/** Tools the compiled matrix leaves out: every caller is refused them once the server is ready. */
export function deniedTools(tools: readonly PolicyTool[]): string[] {
  return tools.filter((t) => !t.isPublic && t.scopeKeys.length === 0).map((t) => t.name).sort();
}
