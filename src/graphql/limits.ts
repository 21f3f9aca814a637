// Query limits of the cockpit graph (docs/graphql.md "Limits"). The graph has cycles
// (Tool.scopes <-> Scope.tools, Group.members -> GroupMember.user -> User.groups, ...), so without
// limits a small query fans out exponentially and exhausts the heap. This validation rule refuses,
// before anything runs, an operation whose selection (fragment spreads and inline fragments
// expanded) has
//   - more than `maxListNesting` fan-out lists nested inside each other on one path,
//   - a depth over `maxDepth` (introspection subtrees have their own, looser `maxIntrospectionDepth`:
//     GraphiQL's schema query nests 15 levels through `ofType`),
//   - more than `maxFields` fields in all,
//   - more than `maxAliases` aliases in all. Without aliases a selection set can name each field
//     only once, so the work per row is bounded by the schema; every alias repeats a field, and
//     its whole subtree, for every row of every enclosing list (one alias-padded query over three
//     lists kept the event loop busy for about 30 s).
// A fan-out list is a list of objects that have object fields of their own (they can lead to
// further lists). Lists of scalars or enums, and lists of "leaf" objects with only scalar fields
// (RoleGrant, Client, EffectiveAccessItem, ...), end the path: they add no nesting level.
// Written against graphql-js only; registered on Yoga by useQueryLimits(). Why not a library:
// docs/decisions/0016-graphql-query-limits.md.
import {
  GraphQLError,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type ASTNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLInterfaceType,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  isUnionType,
  type GraphQLOutputType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from "graphql";
import type { Plugin } from "graphql-yoga";

export interface QueryLimits {
  /** Fan-out lists nested inside each other on one path (resourceServers -> tools -> scopes is 3). */
  maxListNesting: number;
  /** Nesting of fields outside introspection (the root field is depth 1). */
  maxDepth: number;
  /** Nesting inside `__schema` / `__type` (the introspection query of GraphiQL is 15 deep). */
  maxIntrospectionDepth: number;
  /** Fields of the operation after fragment expansion, `__typename` and introspection included. */
  maxFields: number;
  /** Aliases (that differ from the field name) after fragment expansion. */
  maxAliases: number;
}

export const QUERY_LIMITS: Readonly<QueryLimits> = Object.freeze({
  maxListNesting: 3,
  maxDepth: 10,
  maxIntrospectionDepth: 20,
  maxFields: 2000,
  maxAliases: 15,
});

export const QUERY_TOO_COMPLEX = "QUERY_TOO_COMPLEX";

/** Which limit an error names, in `extensions.limit`. */
export type QueryLimitName = "listNesting" | "depth" | "fieldCount" | "aliases";

/** Visits (fields, spreads, inline fragments) per allowed field before the walk gives up. */
const WORK_PER_FIELD = 10;

/** The response path of a field, kept as a linked list and joined only for an error message. */
interface PathLink {
  key: string;
  prev: PathLink | null;
}

function pathOf(link: PathLink | null): string {
  const keys: string[] = [];
  for (let p = link; p; p = p.prev) keys.push(p.key);
  return keys.reverse().join(".");
}

interface Hit {
  value: number;
  max: number;
  path: string;
  node: ASTNode;
}

const isObjectLike = (t: unknown): t is GraphQLObjectType | GraphQLInterfaceType => isObjectType(t) || isInterfaceType(t);

function fieldDefinition(parent: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === "__typename") return TypeNameMetaFieldDef;
  if (name === "__schema") return SchemaMetaFieldDef;
  if (name === "__type") return TypeMetaFieldDef;
  if (parent && isObjectLike(parent)) return parent.getFields()[name];
  return undefined; // unknown field (FieldsOnCorrectTypeRule reports it) or a union's member field
}

/** True for a list (possibly non-null) of objects that have object fields of their own. */
function createFanOutCheck() {
  const branching = new Map<GraphQLNamedType, boolean>();
  const hasObjectFields = (type: GraphQLNamedType): boolean => {
    let known = branching.get(type);
    if (known === undefined) {
      if (isUnionType(type)) known = true; // conservative: its members are objects
      else if (isObjectLike(type)) {
        const fields = Object.values(type.getFields());
        known = fields.some((f) => {
          const named = getNamedType(f.type);
          return isObjectLike(named) || isUnionType(named);
        });
      } else known = false;
      branching.set(type, known);
    }
    return known;
  };
  return (type: GraphQLOutputType): boolean => {
    return isListType(getNullableType(type)) && hasObjectFields(getNamedType(type));
  };
}

/** Measures one operation; returns an error per limit it exceeds (empty when it is within all). */
export function checkOperation(
  context: Pick<ValidationContext, "getSchema" | "getFragment">,
  operation: OperationDefinitionNode,
  limits: QueryLimits = QUERY_LIMITS,
): GraphQLError[] {
  const schema = context.getSchema();
  const isFanOut = createFanOutCheck();
  const workCap = limits.maxFields * WORK_PER_FIELD;
  let fields = 0;
  let aliases = 0;
  let work = 0;
  let aborted: "fields" | "work" | null = null;
  let deepest: Hit | null = null;
  let mostLists: Hit | null = null;
  let tooManyAliases: Hit | null = null;
  const expanding = new Set<string>(); // fragments on the current path (cycles: NoFragmentCyclesRule)

  const walk = (
    selectionSet: SelectionSetNode,
    parent: GraphQLNamedType | undefined,
    depth: number,
    lists: number,
    introspection: boolean,
    path: PathLink | null,
  ): void => {
    for (const selection of selectionSet.selections) {
      if (aborted) return;
      if (++work > workCap) {
        aborted = "work";
        return;
      }
      if (selection.kind === Kind.FIELD) {
        if (++fields > limits.maxFields) {
          aborted = "fields";
          return;
        }
        const name = selection.name.value;
        if (name === "__typename") continue;
        const definition = fieldDefinition(parent, name);
        const here: PathLink = { key: selection.alias?.value ?? name, prev: path };
        if (selection.alias && selection.alias.value !== name && ++aliases > limits.maxAliases) {
          tooManyAliases ??= { value: aliases, max: limits.maxAliases, path: pathOf(here), node: selection };
        }
        const inIntrospection = introspection || name.startsWith("__");
        const fieldDepth = depth + 1;
        const fieldLists = lists + (definition && isFanOut(definition.type) ? 1 : 0);
        const maxDepth = inIntrospection ? limits.maxIntrospectionDepth : limits.maxDepth;
        let stop = false;
        if (fieldDepth > maxDepth) {
          deepest ??= { value: fieldDepth, max: maxDepth, path: pathOf(here), node: selection };
          stop = true;
        }
        if (fieldLists > limits.maxListNesting) {
          mostLists ??= { value: fieldLists, max: limits.maxListNesting, path: pathOf(here), node: selection };
          stop = true;
        }
        // Below a path that is already refused there is nothing more to learn.
        if (selection.selectionSet && !stop) {
          const child = definition ? getNamedType(definition.type) : undefined;
          walk(selection.selectionSet, child, fieldDepth, fieldLists, inIntrospection, here);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        walk(selection.selectionSet, on ?? undefined, depth, lists, introspection, path);
      } else {
        const name = selection.name.value;
        const fragment = context.getFragment(name);
        if (!fragment || expanding.has(name)) continue; // unknown or cyclic: other rules report it
        expanding.add(name);
        walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined, depth, lists, introspection, path);
        expanding.delete(name);
      }
    }
  };

  const root = schema.getRootType(operation.operation) ?? undefined;
  walk(operation.selectionSet, root, 0, 0, false, null);

  const errors: GraphQLError[] = [];
  const refuse = (limit: QueryLimitName, max: number, message: string, node: ASTNode) =>
    errors.push(new GraphQLError(`query too complex: ${message}`, { nodes: [node], extensions: { code: QUERY_TOO_COMPLEX, limit, max } }));
  const lists = mostLists as Hit | null;
  const deep = deepest as Hit | null;
  if (lists) {
    refuse("listNesting", limits.maxListNesting, `${lists.value} lists nested inside each other at ${lists.path} (limit ${limits.maxListNesting})`, lists.node);
  }
  if (deep) {
    refuse("depth", deep.max, `nested ${deep.value} levels deep at ${deep.path} (limit ${deep.max})`, deep.node);
  }
  const aliased = tooManyAliases as Hit | null;
  if (aliased) {
    refuse("aliases", limits.maxAliases, `more than ${limits.maxAliases} aliases once fragments are expanded, the first one over at ${aliased.path} (limit ${limits.maxAliases})`, aliased.node);
  }
  if (aborted === "fields") {
    refuse("fieldCount", limits.maxFields, `more than ${limits.maxFields} fields once fragments are expanded (limit ${limits.maxFields})`, operation);
  } else if (aborted === "work") {
    refuse("fieldCount", limits.maxFields, `fragments expand to more than ${workCap} selections (limit ${limits.maxFields} fields)`, operation);
  }
  return errors;
}

/** The graphql-js validation rule: every operation of the document is measured on its own. */
export function queryLimitsRule(limits: QueryLimits = QUERY_LIMITS): ValidationRule {
  return function QueryLimitsRule(context: ValidationContext) {
    return {
      OperationDefinition(operation: OperationDefinitionNode) {
        for (const error of checkOperation(context, operation, limits)) context.reportError(error);
        return false; // the rule needs nothing below the operation node
      },
    };
  };
}

/** Adds the rule to Yoga's validation (after graphql-js's specified rules). */
export function useQueryLimits(limits: QueryLimits = QUERY_LIMITS): Plugin {
  const rule = queryLimitsRule(limits);
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
    },
  };
}
