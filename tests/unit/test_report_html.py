"""report.html and inspect --html: structure, numbers, layout, escaping and determinism of the page."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest
import report_samples as rs
from conftest import REPO, model

from microfuse.inspect import inspect_graph
from microfuse.report_html import render, render_inspect
from microfuse.report_html.graph_layout import BOX_W, Edge, Node, layout
from microfuse.tflite import load

VOID = {"meta", "br", "input", "img", "hr", "link"}


class Page(HTMLParser):
    """Elements of a page with their attributes, the SVG they sit in, and their text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self.open: list[dict] = []
        self.svg: str | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        el = {"tag": tag, "attrs": dict(attrs), "svg": self.svg, "text": ""}
        if tag == "svg":
            self.svg = el["attrs"].get("id")
        self.elements.append(el)
        if tag not in VOID:
            self.open.append(el)

    def handle_startendtag(self, tag, attrs):
        self.elements.append({"tag": tag, "attrs": dict(attrs), "svg": self.svg, "text": ""})

    def handle_endtag(self, tag):
        assert self.open and self.open[-1]["tag"] == tag, f"</{tag}> closes <{self.open[-1]['tag']}>"
        self.open.pop()
        if tag == "svg":
            self.svg = next((e["attrs"].get("id") for e in reversed(self.open) if e["tag"] == "svg"), None)

    def handle_data(self, data):
        for el in self.open[-1:]:
            el["text"] += data

    def find(self, tag: str, svg: str | None = None, css: str | None = None) -> list[dict]:
        return [e for e in self.elements if e["tag"] == tag and (svg is None or e["svg"] == svg)
                and (css is None or css in e["attrs"].get("class", "").split())]

    def by_id(self, id_: str) -> dict:
        (el,) = [e for e in self.elements if e["attrs"].get("id") == id_]
        return el


@pytest.fixture(scope="module")
def chain() -> dict:
    return rs.report(rs.chain(), board=rs.BOARD, firmware={"text": 30000, "data": 120, "bss": 17000})


@pytest.fixture(scope="module")
def residual() -> dict:
    return rs.report(rs.residual(), bench=True)


@pytest.fixture(scope="module")
def long60() -> dict:
    return rs.report(rs.long_model(60))


def test_chain_page_numbers(chain):
    page = Page(render(chain))
    svg = page.by_id("memory-timeline")["attrs"]
    assert int(svg["data-peak"]) == chain["arena_bytes"]
    assert int(svg["data-lower-bound"]) == chain["lower_bound_bytes"]
    assert int(svg["data-buffers"]) == len(chain["timeline"]) == len(page.find("rect", "memory-timeline", "buf"))
    assert int(svg["data-steps"]) == chain["kernel_calls"]
    text = " ".join(e["text"] for e in page.elements)
    assert f"peak = arena {chain['arena_bytes']:,} B" in text
    assert f"whole-tensor bound {chain['lower_bound_bytes']:,} B" in text
    assert "scratch#2" in " ".join(e["text"] for e in page.find("title", "memory-timeline"))


def test_peak_line_is_at_the_top_of_the_highest_buffer(chain):
    """The peak marker is drawn at arena_bytes, and arena_bytes is where the highest buffer ends."""
    page = Page(render(chain))
    tops = [float(r["attrs"]["y"]) for r in page.find("rect", "memory-timeline", "buf")]
    (peak,) = page.find("line", "memory-timeline", "level-peak")
    assert float(peak["attrs"]["y1"]) == pytest.approx(min(tops), abs=0.11)


def test_chain_graphs_connect_calls_through_the_reshape_alias(chain):
    page = Page(render(chain))
    src, fused = page.by_id("graph-source")["attrs"], page.by_id("graph-fused")["attrs"]
    assert int(src["data-nodes"]) == 7 + 2  # ops plus the graph input and output
    assert int(src["data-edges"]) == 8  # a chain: input -> 7 ops -> output
    assert int(fused["data-nodes"]) == 5 + 2
    assert int(fused["data-edges"]) == 6  # pool -> fc edge passes through the RESHAPE, which is no call
    assert len(page.find("g", "graph-fused", "fused")) == 1  # fully_connected+softmax


def test_chain_board_bars_and_fusion_list(chain):
    html = render(chain)
    page = Page(html)
    usage = [e["attrs"] for e in page.elements if "data-limit" in e["attrs"]]
    assert [(int(u["data-used"]), int(u["data-limit"])) for u in usage] == [(30120, 4194304), (17120, 4194304)]
    assert "does not fit" not in html
    assert "fully_connected+softmax" in html and "no fused kernel for this pair" in html


def test_board_too_small_is_flagged(chain):
    small = copy.deepcopy(chain)
    small["board"] = {"name": "tiny", "flash_bytes": 16384, "sram_bytes": 8192}
    html = render(small)
    assert html.count("does not fit") == 2


def test_residual_skip_edges_inplace_and_bench(residual):
    page = Page(render(residual))
    skips = page.find("path", "graph-source", "skip")
    assert len(skips) == 2  # t0 -> the first add, and the projection shortcut t6 -> the second add
    shared = page.find("rect", "memory-timeline", "shared")
    assert {e["attrs"]["class"] for e in shared} == {"shared shared-inplace"}
    assert len(shared) == 2  # the unfused add over t5, softmax over the fc output
    tips = " ".join(e["text"] for e in page.find("title", "memory-timeline"))
    assert "t7 is written over t5" in tips
    shares = [float(e["text"].strip().rstrip("%")) for e in page.find("td") if e["text"].strip().endswith("%")]
    assert len(shares) == residual["kernel_calls"] and sum(shares) == pytest.approx(100, abs=0.2)
    per_call = residual["bench"]["per_call"]
    text = " ".join(e["text"] for e in page.find("td"))
    assert all(f"{n:,}" in text for n in per_call)


def test_partial_overlap_is_marked():
    r = rs.report(rs.chain())
    t = {e["tensor"]: e for e in r["timeline"]}
    # move the fused fc+softmax output into the middle of the pooled input it reads (through RESHAPE)
    t["out"]["offset"] = t["p3"]["offset"] + 6
    t["out"]["overlaps"] = "partial"
    r["arena_bytes"] = max(e["offset"] + e["bytes"] for e in r["timeline"])
    page = Page(render(r))
    (shared,) = page.find("rect", "memory-timeline", "shared")
    assert "shared-partial" in shared["attrs"]["class"]


def test_sixty_nodes_layout_is_legible(long60):
    page = Page(render(long60))
    for svg_id in ("graph-source", "graph-fused"):
        svg = page.by_id(svg_id)["attrs"]
        assert int(svg["data-nodes"]) == 62
        boxes = [tuple(float(r["attrs"][k]) for k in ("x", "y", "width", "height"))
                 for r in page.find("rect", svg_id) if r["attrs"].get("rx") is not None]
        boxes = [b for b in boxes if b[2] == BOX_W]
        assert len(boxes) >= 62
        width, height = float(svg["width"]), float(svg["height"])
        assert all(0 <= x and x + w <= width and 0 <= y and y + h <= height for x, y, w, h in boxes)
        assert width < 900  # a chain with skips stays one column wide
        fronts = sorted(boxes[:62], key=lambda b: (b[1], b[0]))
        for a, b in zip(fronts, fronts[1:]):
            assert not (a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3])
    text = " ".join(e["text"] for e in page.find("text", "graph-source"))
    assert "op 0 DEPTHWISE_CONV_2D + RELU6" in text and "op 59 FULLY_CONNECTED" in text


def test_layout_routes_skips_right_of_all_boxes():
    nodes = [Node((f"n{i}",), "", "fam-conv") for i in range(5)]
    edges = [Edge(0, 1, ""), Edge(1, 2, ""), Edge(2, 3, ""), Edge(0, 3, ""), Edge(1, 4, ""), Edge(3, 4, "")]
    g = layout(nodes, edges)
    right = max(n.x + n.w for n in g.nodes)
    skips = [e for e in g.edges if e.skip]
    assert len(skips) == 2
    lanes = {float(re.search(r"V", e.d) and re.findall(r"Q([\d.]+)", e.d)[0]) for e in skips}
    assert len(lanes) == 2 and min(lanes) > right  # overlapping spans use separate lanes
    assert g.layers == 5


def test_escaping_of_names_from_the_model(chain):
    evil = '<script>alert("x")</script> & </svg><b onmouseover=\'1\'>'
    r = json.loads(json.dumps(chain).replace('"d1"', json.dumps(evil)))
    r["graph"]["source"][1]["kind"] = "<img src=x onerror=alert(1)>"
    r["name"] = "<i>kws</i>"
    r["notes"] = ["<u>note</u>"]
    html = render(r)
    assert "<script" not in html.lower() and "<img" not in html.lower() and "<b " not in html
    assert "<i>kws</i>" not in html and "<u>" not in html
    assert "&lt;script&gt;" in html and "&lt;img src=x" in html
    page = Page(html)  # still well-formed: every element closes where it opened
    titles = " ".join(e["text"] for e in page.find("title"))
    assert evil in titles  # the name survives intact as text
    assert page.find("g", "graph-source", "fam-other")  # unknown kind: a fixed class, never the name


def test_page_is_self_contained(residual):
    html = render(residual)
    assert not re.search(r"<(script|link|iframe|img|object|embed)\b", html, re.I)
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert set(re.findall(r"url\(([^)]*)\)", html)) <= {"#tl-inplace", "#tl-partial", "#graph-source-arrow",
                                                         "#graph-fused-arrow"}
    assert "@import" not in html and "@font-face" not in html


def test_deterministic_across_processes(residual):
    html = render(residual)
    assert render(copy.deepcopy(residual)) == html
    code = ("import json, sys; from microfuse.report_html import render; "
            "sys.stdout.write(render(json.load(sys.stdin)))")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], input=json.dumps(residual), capture_output=True,
                             text=True, check=True, cwd=REPO, env={**os.environ, "PYTHONHASHSEED": seed,
                                                                    "PYTHONPATH": str(REPO)})
        assert out.stdout == html


def test_minimal_report_without_optional_sections(chain):
    """Before the planner's timeline exists, or without board/bench/fusion, the page still renders."""
    bare = {k: v for k, v in chain.items() if k not in ("timeline", "steps", "plan", "fusion")}
    bare.update(board=None, firmware=None, bench=None)
    page = Page(render(bare))
    assert int(page.by_id("memory-timeline")["attrs"]["data-peak"]) == chain["arena_bytes"]
    assert not [e for e in page.elements if e["attrs"].get("id") in ("board", "fusion")]


def test_inspect_page_for_a_real_model():
    data = inspect_graph(load(model("mlperf_kws_dscnn_int8")), "kws.tflite").to_json()
    page = Page(render_inspect(data))
    chart = page.by_id("alive-chart")["attrs"]
    assert int(chart["data-lower-bound"]) == data["lower_bound_bytes"]
    assert int(chart["data-steps"]) == len(data["ops"]) == 13
    bars = page.find("rect", "alive-chart")
    assert len(bars) == 13 and sum("bar-peak" in b["attrs"]["class"] for b in bars) == 1
    graph = page.by_id("graph-source")["attrs"]
    assert int(graph["data-nodes"]) == 13 + 2 and int(graph["data-edges"]) == 14
    assert f"{data['lower_bound_bytes']:,}" in " ".join(e["text"] for e in page.elements)


def test_empty_inputs_render_a_page():
    assert "<svg id=\"memory-timeline\"" in render({})
    assert "<svg id=\"alive-chart\"" in render_inspect({})


def test_timeline_beyond_the_arena_is_reported(chain):
    wrong = copy.deepcopy(chain)
    wrong["arena_bytes"] = chain["arena_bytes"] - 100
    html = render(wrong)
    assert f"beyond the arena&#39;s {wrong['arena_bytes']:,} bytes" in html


def test_inspect_page_escapes_tensor_names():
    data = inspect_graph(load(model("mlperf_kws_dscnn_int8")), "<kws>.tflite").to_json()
    data["ops"][0]["inputs"][0]["name"] = "<script>x</script>"
    html = render_inspect(data)
    assert "<script" not in html and "&lt;script&gt;x&lt;/script&gt;" in html and "&lt;kws&gt;.tflite" in html
    Page(html)
