/**
 * A layered layout for a formation's graph (docs/console.md, "The formation as a graph"): rows by the longest chain
 * of edges above a node, nodes in a row in their first caller's order, then their own; edges as curves from a
 * caller's bottom to a callee's top, each label stacked just above its callee. A roster of a few members whose calls
 * flow one way needs no layout library for this. Pure: coordinates in SVG user units.
 */

export interface LayoutNodeInput {
  id: string;
}

export interface LayoutEdgeInput {
  id: string;
  from: string;
  to: string;
  label: string;
}

interface PlacedNode {
  id: string;
  row: number;
  x: number;
  y: number;
}

interface PlacedEdge {
  id: string;
  /** An SVG path. */
  d: string;
  /** The label's centre and baseline. */
  labelX: number;
  labelY: number;
  /** Drawn upward: the edge closes a cycle (the roster refuses one; records are drawn whatever they hold). */
  upward: boolean;
}

export interface GraphLayout {
  width: number;
  height: number;
  nodeWidth: number;
  nodeHeight: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const NODE_WIDTH = 196;
const NODE_HEIGHT = 44;
const COLUMN_GAP = 32;
const PADDING = 16;
/** A label line's height and its estimated width per character (12 px text). */
const LINE_HEIGHT = 16;
const CHAR_WIDTH = 6.8;
const ROW_GAP_BASE = 36;
/** Between a callee's top and its lowest label: the arrowheads show there. */
const LABEL_CLEARANCE = 14;

/** Edges that close a cycle, found by a depth-first walk from the nodes in their order. */
function backEdges(nodes: readonly LayoutNodeInput[], edges: readonly LayoutEdgeInput[]): Set<string> {
  const out = new Map<string, LayoutEdgeInput[]>(nodes.map((n) => [n.id, []]));
  for (const e of edges) out.get(e.from)?.push(e);
  const state = new Map<string, 'open' | 'done'>();
  const back = new Set<string>();
  const visit = (id: string) => {
    state.set(id, 'open');
    for (const e of out.get(id) ?? []) {
      const seen = state.get(e.to);
      if (seen === 'open') back.add(e.id);
      else if (seen === undefined) visit(e.to);
    }
    state.set(id, 'done');
  };
  for (const n of nodes) if (!state.has(n.id)) visit(n.id);
  return back;
}

/** Each node's row: 0 for a node no forward edge reaches, else one below the lowest of its callers. */
export function rowsOf(nodes: readonly LayoutNodeInput[], edges: readonly LayoutEdgeInput[]): Map<string, number> {
  const back = backEdges(nodes, edges);
  const forward = edges.filter((e) => !back.has(e.id) && e.from !== e.to);
  const rows = new Map(nodes.map((n) => [n.id, 0]));
  // Longest path in a DAG: relaxing every edge as many times as there are nodes settles it.
  for (let pass = 0; pass < nodes.length; pass++) {
    let changed = false;
    for (const e of forward) {
      const below = (rows.get(e.from) ?? 0) + 1;
      if (rows.has(e.to) && below > (rows.get(e.to) ?? 0)) {
        rows.set(e.to, below);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return rows;
}

export function layoutGraph(nodes: readonly LayoutNodeInput[], edges: readonly LayoutEdgeInput[]): GraphLayout {
  const known = new Set(nodes.map((n) => n.id));
  const drawn = edges.filter((e) => known.has(e.from) && known.has(e.to) && e.from !== e.to);
  const back = backEdges(nodes, drawn);
  const rows = rowsOf(nodes, drawn);
  const rowCount = Math.max(0, ...rows.values()) + 1;
  const order = new Map(nodes.map((n, i) => [n.id, i]));

  // Within a row: by the column of the first caller above, then the node's own order.
  const columns = new Map<string, number>();
  const byRow: string[][] = Array.from({ length: rowCount }, () => []);
  for (let r = 0; r < rowCount; r++) {
    const inRow = nodes.filter((n) => rows.get(n.id) === r).map((n) => n.id);
    const key = (id: string) => {
      const callers = drawn.filter((e) => e.to === id && !back.has(e.id)).map((e) => columns.get(e.from) ?? Number.POSITIVE_INFINITY);
      return callers.length > 0 ? Math.min(...callers) : Number.POSITIVE_INFINITY;
    };
    inRow.sort((a, b) => key(a) - key(b) || (order.get(a) ?? 0) - (order.get(b) ?? 0));
    for (const [i, id] of inRow.entries()) columns.set(id, i);
    byRow[r] = inRow;
  }

  const widestLabel = Math.max(0, ...drawn.map((e) => e.label.length * CHAR_WIDTH));
  const pitch = Math.max(NODE_WIDTH, widestLabel) + COLUMN_GAP;
  const incoming = new Map<string, LayoutEdgeInput[]>();
  for (const e of drawn) incoming.set(e.to, [...(incoming.get(e.to) ?? []), e]);
  const mostIncoming = Math.max(1, ...[...incoming.values()].map((list) => list.length));
  const labelsHeight = LABEL_CLEARANCE + LINE_HEIGHT * mostIncoming;
  const rowPitch = NODE_HEIGHT + ROW_GAP_BASE + labelsHeight;
  const widestRow = Math.max(1, ...byRow.map((r) => r.length));
  const width = PADDING * 2 + widestRow * pitch - COLUMN_GAP;
  // The top row has no labels above it: only callees do.
  const height = PADDING * 2 + (rowCount - 1) * rowPitch + NODE_HEIGHT;

  const placed = new Map<string, PlacedNode>();
  for (const [r, ids] of byRow.entries()) {
    const rowWidth = ids.length * pitch - COLUMN_GAP;
    const left = (width - rowWidth) / 2 + (pitch - COLUMN_GAP - NODE_WIDTH) / 2;
    for (const [i, id] of ids.entries()) placed.set(id, { id, row: r, x: left + i * pitch, y: PADDING + r * rowPitch });
  }

  // Ports: a node's outgoing edges leave its bottom, its incoming ones reach its top, spread in their ends' order.
  const portX = (node: PlacedNode, k: number, n: number) => node.x + ((k + 1) / (n + 1)) * NODE_WIDTH;
  const centreOf = (id: string) => (placed.get(id)?.x ?? 0) + NODE_WIDTH / 2;
  const outgoingSorted = new Map<string, LayoutEdgeInput[]>();
  for (const e of drawn) outgoingSorted.set(e.from, [...(outgoingSorted.get(e.from) ?? []), e]);
  for (const list of outgoingSorted.values()) list.sort((a, b) => centreOf(a.to) - centreOf(b.to));
  for (const list of incoming.values()) list.sort((a, b) => centreOf(a.from) - centreOf(b.from));

  const placedEdges = drawn.map((e): PlacedEdge => {
    const from = placed.get(e.from) as PlacedNode;
    const to = placed.get(e.to) as PlacedNode;
    const outs = outgoingSorted.get(e.from) ?? [e];
    const ins = incoming.get(e.to) ?? [e];
    const k = ins.indexOf(e);
    const sx = portX(from, outs.indexOf(e), outs.length);
    const ex = portX(to, k, ins.length);
    // The first incoming edge's label is the highest, so labels read in the order their lines arrive.
    const labelY = to.y - LABEL_CLEARANCE - LINE_HEIGHT * (ins.length - 1 - k);
    if (back.has(e.id)) {
      const sy = from.y;
      const ey = to.y + NODE_HEIGHT;
      const bend = Math.max(pitch / 2, Math.abs(sy - ey) / 2);
      return {
        id: e.id,
        d: `M ${sx} ${sy} C ${sx + bend} ${sy - bend / 2}, ${ex + bend} ${ey + bend / 2}, ${ex} ${ey}`,
        labelX: (sx + ex) / 2 + bend / 2,
        labelY: (sy + ey) / 2,
        upward: true,
      };
    }
    const sy = from.y + NODE_HEIGHT;
    const ey = to.y;
    const mid = (sy + ey) / 2;
    return { id: e.id, d: `M ${sx} ${sy} C ${sx} ${mid}, ${ex} ${mid}, ${ex} ${ey}`, labelX: centreOf(e.to), labelY, upward: false };
  });

  return { width, height, nodeWidth: NODE_WIDTH, nodeHeight: NODE_HEIGHT, nodes: nodes.map((n) => placed.get(n.id) as PlacedNode), edges: placedEdges };
}
