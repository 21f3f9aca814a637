// The graph's side of the input-hygiene rule (src/shared/input-safety.ts, the same one REST
// applies in src/rest/input-hygiene.ts): an argument holding NUL, an unpaired surrogate or absurdly
// deep input is refused before anything executes, as BAD_USER_INPUT naming the argument path:
//   {"errors":[{"message":"input.name: must not contain NUL characters or unpaired surrogates",
//     "locations":[...],"extensions":{"code":"BAD_USER_INPUT"}}]}
// (HTTP 200, as every other BAD_USER_INPUT). Both ways of passing text are checked: string
// literals in the document (`"a\u0000b"` is a valid GraphQL escape) and variables, after
// coercion (so variable defaults count too). Arguments the graph carries as JSON text
// (conditions, inputSchemaJson) are checked again once decoded, by parseArg
// (src/graphql/validation.ts).
import {
  GraphQLError,
  Kind,
  getOperationAST,
  getVariableValues,
  type ArgumentNode,
  type DirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { MAX_JSON_DEPTH, describeUnsafeInput, findUnsafeInput, unsafeText, type UnsafeInput } from "../shared/input-safety";

/** The first unstorable part of an argument's value: literals as written, variables as coerced. */
function unsafeValue(node: ValueNode, variables: Record<string, unknown>, path: (string | number)[], depth: number): UnsafeInput | null {
  if (depth >= MAX_JSON_DEPTH) return { kind: "depth", path };
  switch (node.kind) {
    case Kind.STRING: {
      const kind = unsafeText(node.value);
      return kind ? { kind, path } : null;
    }
    case Kind.VARIABLE:
      return findUnsafeInput(variables[node.name.value], path, depth);
    case Kind.LIST:
      for (const [i, v] of node.values.entries()) {
        const found = unsafeValue(v, variables, [...path, i], depth + 1);
        if (found) return found;
      }
      return null;
    case Kind.OBJECT:
      for (const f of node.fields) {
        const found = unsafeValue(f.value, variables, [...path, f.name.value], depth + 1);
        if (found) return found;
      }
      return null;
    default:
      return null; // numbers, booleans, enums, null
  }
}

/** The error for the first argument (of a field or directive) of the operation that cannot be stored, or null. */
export function unsafeArgument(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, rawVariables: Record<string, unknown> | null | undefined): GraphQLError | null {
  const operation = getOperationAST(document, operationName);
  if (!operation) return null; // execution reports the missing or ambiguous operation
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (coerced.errors) return null; // execution coerces the same way and reports these
  const variables = coerced.coerced;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const visited = new Set<string>();

  const checkArguments = (args: readonly ArgumentNode[] | undefined): GraphQLError | null => {
    for (const arg of args ?? []) {
      const found = unsafeValue(arg.value, variables, [], 0);
      if (found) return new GraphQLError(describeUnsafeInput(found, { prefix: [arg.name.value] }), { nodes: [arg], extensions: { code: "BAD_USER_INPUT" } });
    }
    return null;
  };
  const checkDirectives = (directives: readonly DirectiveNode[] | undefined): GraphQLError | null => {
    for (const d of directives ?? []) {
      const e = checkArguments(d.arguments);
      if (e) return e;
    }
    return null;
  };
  const checkSelections = (set: SelectionSetNode | undefined): GraphQLError | null => {
    for (const s of set?.selections ?? []) {
      const e = (() => {
        switch (s.kind) {
          case Kind.FIELD:
            return checkArguments(s.arguments) ?? checkDirectives(s.directives) ?? checkSelections(s.selectionSet);
          case Kind.INLINE_FRAGMENT:
            return checkDirectives(s.directives) ?? checkSelections(s.selectionSet);
          case Kind.FRAGMENT_SPREAD: {
            const e = checkDirectives(s.directives);
            if (e || visited.has(s.name.value)) return e;
            visited.add(s.name.value);
            return checkSelections(fragments.get(s.name.value)?.selectionSet);
          }
        }
      })();
      if (e) return e;
    }
    return null;
  };
  return checkDirectives(operation.directives) ?? checkSelections(operation.selectionSet);
}

/** Refuses an operation whose arguments hold unstorable input, after variable coercion and before execution. */
export function useInputHygiene(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = unsafeArgument(args.schema, args.document, args.operationName, args.variableValues as Record<string, unknown> | undefined);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
