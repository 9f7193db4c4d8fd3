"""A layered top-to-bottom DAG layout for op graphs: boxes in execution order, edges as SVG paths."""

from __future__ import annotations

from dataclasses import dataclass

from .fmt import clip, num

BOX_W = 250
BOX_H = 44
IO_H = 38
LAYER_GAP = 30  # vertical room for edges between two layers
COL_GAP = 26
MARGIN = 16
LANE_GAP = 12  # horizontal distance between skip-edge lanes
CHARS = 32  # characters that fit on a box line at 12px


@dataclass(frozen=True)
class Node:
    """One box: text lines (the first is the title), a tooltip, and fixed CSS classes."""

    lines: tuple[str, ...]
    tooltip: str
    css: str
    badge: str = ""
    io: bool = False  # a graph input or output, drawn as a pill


@dataclass(frozen=True)
class Edge:
    src: int  # node index; must be smaller than dst (nodes come in execution order)
    dst: int
    tooltip: str


@dataclass(frozen=True)
class PlacedNode:
    node: Node
    x: float
    y: float
    w: float
    h: float
    lines: tuple[str, ...]  # clipped to fit
    badge: str


@dataclass(frozen=True)
class PlacedEdge:
    d: str
    tooltip: str
    skip: bool  # spans more than one layer: routed around the boxes on the right


@dataclass(frozen=True)
class GraphLayout:
    width: float
    height: float
    nodes: tuple[PlacedNode, ...]
    edges: tuple[PlacedEdge, ...]
    layers: int


def _layers(n: int, edges: list[Edge]) -> list[int]:
    """Longest-path layering: a node sits one layer below its deepest predecessor."""
    layer = [0] * n
    for e in sorted(edges, key=lambda e: e.dst):
        layer[e.dst] = max(layer[e.dst], layer[e.src] + 1)
    return layer


def _order_layers(layer: list[int], edges: list[Edge]) -> list[list[int]]:
    """Nodes of each layer, left to right by the mean slot of their predecessors (fewer crossings)."""
    rows: list[list[int]] = [[] for _ in range(max(layer, default=-1) + 1)]
    for i, l in enumerate(layer):
        rows[l].append(i)
    preds: dict[int, list[int]] = {}
    for e in edges:
        preds.setdefault(e.dst, []).append(e.src)
    slot: dict[int, float] = {}
    for row in rows:
        width = len(row)

        def key(i: int) -> tuple[float, int]:
            ps = [slot[p] for p in preds.get(i, []) if p in slot]
            return (sum(ps) / len(ps) if ps else 0.0, i)

        row.sort(key=key)
        for k, i in enumerate(row):
            slot[i] = k - (width - 1) / 2
    return rows


def _spread(count: int, width: float) -> list[float]:
    """Offsets of `count` ports along a side of `width`, centred."""
    step = min(18.0, width / (count + 1))
    return [(k - (count - 1) / 2) * step for k in range(count)]


def layout(nodes: list[Node], edges: list[Edge]) -> GraphLayout:
    edges = [e for e in edges if 0 <= e.src < e.dst < len(nodes)]
    layer = _layers(len(nodes), edges)
    rows = _order_layers(layer, edges)
    widest = max((len(r) for r in rows), default=1)
    center = MARGIN + (widest * BOX_W + (widest - 1) * COL_GAP) / 2
    boxes: dict[int, tuple[float, float, float, float]] = {}
    y = MARGIN
    tops = []
    for row in rows:
        tops.append(y)
        for k, i in enumerate(row):
            h = IO_H if nodes[i].io else BOX_H
            x = center + (k - (len(row) - 1) / 2) * (BOX_W + COL_GAP) - BOX_W / 2
            boxes[i] = (x, y + (BOX_H - h) / 2, BOX_W, h)
        y += BOX_H + LAYER_GAP
    right = max((x + w for x, _, w, _ in boxes.values()), default=MARGIN)
    placed_edges, lanes = _route(edges, layer, boxes, right)
    placed_nodes = tuple(
        PlacedNode(n, *boxes[i], tuple(clip(t, CHARS) for t in n.lines), clip(n.badge, 12))
        for i, n in enumerate(nodes))
    width = right + MARGIN + (lanes * LANE_GAP + 8 if lanes else 0)
    height = (y - LAYER_GAP + MARGIN) if rows else 2 * MARGIN
    return GraphLayout(width, height, placed_nodes, tuple(placed_edges), len(rows))


def _route(edges: list[Edge], layer: list[int], boxes: dict, right: float) -> tuple[list[PlacedEdge], int]:
    """Paths for every edge, and how many skip lanes they needed."""
    near = [e for e in edges if layer[e.dst] - layer[e.src] == 1]
    far = [e for e in edges if layer[e.dst] - layer[e.src] > 1]
    out_ports = _ports(near, boxes, lambda e: e.src, lambda e: boxes[e.dst][0])
    in_ports = _ports(near, boxes, lambda e: e.dst, lambda e: boxes[e.src][0])
    paths = []
    for e in near:
        sx, sy = out_ports[id(e)], boxes[e.src][1] + boxes[e.src][3]
        dx, dy = in_ports[id(e)], boxes[e.dst][1]
        mid = (sy + dy) / 2
        d = f"M{num(sx)} {num(sy)} C{num(sx)} {num(mid)} {num(dx)} {num(mid)} {num(dx)} {num(dy - 2)}"
        paths.append((e, PlacedEdge(d, e.tooltip, False)))
    lane_of, lanes = _lanes(far, layer)
    side_out = _side_ports(far, boxes, lambda e: e.src)
    side_in = _side_ports(far, boxes, lambda e: e.dst)
    for e in far:
        x = right + LANE_GAP * (lane_of[id(e)] + 1)
        sx, sy = boxes[e.src][0] + boxes[e.src][2], side_out[id(e)]
        dx, dy = boxes[e.dst][0] + boxes[e.dst][2], side_in[id(e)]
        r = 6
        d = (f"M{num(sx)} {num(sy)} H{num(x - r)} Q{num(x)} {num(sy)} {num(x)} {num(sy + r)} "
             f"V{num(dy - r)} Q{num(x)} {num(dy)} {num(x - r)} {num(dy)} H{num(dx + 2)}")
        paths.append((e, PlacedEdge(d, e.tooltip, True)))
    paths.sort(key=lambda p: (p[0].src, p[0].dst))
    return [p for _, p in paths], lanes


def _ports(edges: list[Edge], boxes: dict, end, other_x) -> dict[int, float]:
    """x of each edge's port on a box's top or bottom side, ordered by the far end's x."""
    by_node: dict[int, list[Edge]] = {}
    for e in edges:
        by_node.setdefault(end(e), []).append(e)
    ports = {}
    for node, group in by_node.items():
        group.sort(key=lambda e: (other_x(e), e.src, e.dst))
        x, _, w, _ = boxes[node]
        for e, off in zip(group, _spread(len(group), w)):
            ports[id(e)] = x + w / 2 + off
    return ports


def _side_ports(edges: list[Edge], boxes: dict, end) -> dict[int, float]:
    """y of each skip edge's port on a box's right side."""
    by_node: dict[int, list[Edge]] = {}
    for e in edges:
        by_node.setdefault(end(e), []).append(e)
    ports = {}
    for node, group in by_node.items():
        _, y, _, h = boxes[node]
        for e, off in zip(group, _spread(len(group), h - 8)):
            ports[id(e)] = y + h / 2 + off
    return ports


def _lanes(far: list[Edge], layer: list[int]) -> tuple[dict[int, int], int]:
    """Interval colouring: skip edges whose layer spans overlap get different lanes."""
    lane_end: list[int] = []
    lane_of = {}
    for e in sorted(far, key=lambda e: (layer[e.src], layer[e.dst], e.src, e.dst)):
        start, end = layer[e.src], layer[e.dst]
        free = next((k for k, last in enumerate(lane_end) if last < start), None)
        if free is None:
            lane_end.append(end)
            free = len(lane_end) - 1
        lane_end[free] = end
        lane_of[id(e)] = free
    return lane_of, len(lane_end)
