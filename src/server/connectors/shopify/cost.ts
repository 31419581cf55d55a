import { Kind, parse, type DocumentNode, type FieldNode, type SelectionSetNode, type ValueNode } from 'graphql';

// The requested cost of a GraphQL Admin query, computed from Shopify's published rules before we send
// it, so that every query we send stays under the single-query ceiling and the client can wait for the
// bucket to hold it (docs/platform-notes.md, "Shopify: query cost").
//
// https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits ("Cost calculation"):
//   scalar 0, enum 0, object 1, interface/union: the maximum of possible selections,
//   connection: "sized by first and last arguments", mutation 10; a single query may not exceed a
//   requested cost of 1,000 points, enforced before execution.
// https://shopify.engineering/rate-limiting-graphql-apis-calculating-query-complexity: a connection
//   costs two points plus the objects it may return, each at the cost of its selection, so nested
//   connections multiply.
// Not published, and decided here on the safe side:
//   - a list that is not a connection (Order.refunds, LineItem.taxLines) with a `first` argument
//     ("Truncate the array result to this size") costs `first` elements; without one, one element;
//   - `pageInfo` is part of a connection's two points; `__typename` is free.

/** Shopify's ceiling for one query's requested cost. */
export const SHOPIFY_MAX_QUERY_COST = 1000;
/** What our queries are sized to stay under: Shopify "reserves the right to set manual costs on fields". */
export const SHOPIFY_QUERY_COST_BUDGET = 900;

/** Fields of the Admin schema we select that are lists but not connections. */
const LIST_FIELDS = new Set(['refunds', 'taxLines', 'currentTaxLines', 'additionalFees']);
const CONNECTION_CHILDREN = new Set(['nodes', 'edges']);

const parsed = new Map<string, DocumentNode>();

function documentOf(query: string): DocumentNode {
  let document = parsed.get(query);
  if (!document) {
    document = parse(query);
    if (parsed.size > 200) parsed.clear();
    parsed.set(query, document);
  }
  return document;
}

function argumentValue(value: ValueNode, variables: Record<string, unknown>): unknown {
  if (value.kind === Kind.VARIABLE) return variables[value.name.value];
  if (value.kind === Kind.INT) return Number(value.value);
  return undefined;
}

function sizeOf(field: FieldNode, variables: Record<string, unknown>): number | null {
  for (const argument of field.arguments ?? []) {
    if (argument.name.value !== 'first' && argument.name.value !== 'last') continue;
    const size = argumentValue(argument.value, variables);
    if (typeof size === 'number' && Number.isFinite(size)) return size;
  }
  return null;
}

function selectionCost(selectionSet: SelectionSetNode | undefined, variables: Record<string, unknown>): number {
  if (!selectionSet) return 0;
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) total += fieldCost(selection, variables);
    // An inline fragment (`... on Refund`) is the maximum of possible selections: ours have one type each.
    else if (selection.kind === Kind.INLINE_FRAGMENT) total += selectionCost(selection.selectionSet, variables);
  }
  return total;
}

/** The cost of one node of a connection: the object (1) and what is selected on it. */
function connectionNodeCost(selectionSet: SelectionSetNode, variables: Record<string, unknown>): number {
  let node = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    if (selection.name.value === 'nodes') node = Math.max(node, 1 + selectionCost(selection.selectionSet, variables));
    if (selection.name.value === 'edges') {
      const inner = selection.selectionSet?.selections.find((child): child is FieldNode => child.kind === Kind.FIELD && child.name.value === 'node');
      if (inner) node = Math.max(node, 1 + selectionCost(inner.selectionSet, variables));
    }
  }
  return node;
}

function fieldCost(field: FieldNode, variables: Record<string, unknown>): number {
  const name = field.name.value;
  if (name === '__typename' || name === 'pageInfo' || !field.selectionSet) return 0;
  const isConnection = field.selectionSet.selections.some((selection) => selection.kind === Kind.FIELD && CONNECTION_CHILDREN.has(selection.name.value));
  if (isConnection) {
    const size = sizeOf(field, variables);
    if (size === null) throw new ShopifyQueryCostError(`connection "${name}" has no first or last argument`);
    return 2 + size * connectionNodeCost(field.selectionSet, variables);
  }
  const element = 1 + selectionCost(field.selectionSet, variables);
  if (LIST_FIELDS.has(name)) return (sizeOf(field, variables) ?? 1) * element;
  return element;
}

export class ShopifyQueryCostError extends Error {}

/**
 * The requested cost of `query` with `variables` (connection sizes may be variables). A mutation's
 * root field costs 10 plus its selection.
 */
export function requestedQueryCost(query: string, variables: Record<string, unknown> = {}): number {
  const document = documentOf(query);
  let total = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const selection of definition.selectionSet.selections) {
      if (selection.kind !== Kind.FIELD) continue;
      const cost = fieldCost(selection, variables);
      total += definition.operation === 'mutation' ? 10 + Math.max(0, cost - 1) : cost;
    }
  }
  return total;
}

/**
 * The largest `first` in [1, max] for which `costAt(first)` stays within `budget` (costs grow with
 * `first`); throws when even 1 is over, which is a query that must be made smaller.
 */
export function largestFirstWithin(costAt: (first: number) => number, max: number, budget: number = SHOPIFY_QUERY_COST_BUDGET): number {
  if (costAt(1) > budget) throw new ShopifyQueryCostError(`even one item costs ${costAt(1)} points, over the budget of ${budget}`);
  let low = 1;
  let high = max;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (costAt(middle) <= budget) low = middle;
    else high = middle - 1;
  }
  return low;
}
