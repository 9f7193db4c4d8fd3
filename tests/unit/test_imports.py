"""Dependencies run one way: no import cycle between microfuse's modules, and no stage imports a
later one (ir -> ops -> passes -> lower -> plan -> emit -> pipeline -> targets -> cli).

Every import is read from the source with ast, at module level and inside functions alike (a
late import is still a dependency); `if TYPE_CHECKING:` blocks count too."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "microfuse"
STAGES = ["ir", "ops", "passes", "lower", "plan", "emit", "pipeline", "targets", "cli"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The microfuse modules `name` imports (a `from pkg import sub` names the submodule)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "microfuse"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != "microfuse":
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph (as a path back to its start), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_the_finder_sees_a_cycle_and_a_late_import(tmp_path):
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from .lower import conv\n    import microfuse.plan\n")
    known = {"microfuse.lower", "microfuse.lower.conv", "microfuse.plan", "microfuse.m"}
    assert imports("microfuse.m", src, known) == {"microfuse.lower.conv", "microfuse.plan"}


def test_no_import_cycle_between_modules():
    edges = graph()
    assert len(edges) > 80 and sum(map(len, edges.values())) > 200  # the walk sees the package
    cycle = find_cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def stage(name: str) -> int | None:
    top = name.split(".")[1] if "." in name else ""
    return STAGES.index(top) if top in STAGES else None


def test_stages_import_only_earlier_stages():
    wrong = [(a, b) for a, deps in graph().items() for b in deps
             if stage(a) is not None and stage(b) is not None and stage(b) > stage(a)]
    assert not wrong, "a stage imports a later one: " + ", ".join(f"{a} -> {b}" for a, b in wrong)
