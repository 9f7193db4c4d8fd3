"""Per-build symbol names: mf_config.h renames the runtime's mf_* functions to NAME_mf_*, so the
libraries of several models (or of one model built twice) link into one program."""

from __future__ import annotations

import re
from collections.abc import Iterable

CONFIG = "mf_config.h"  # included by mf_common.h with quotes: the copy beside it wins
FUNCTION = re.compile(r"\b(mf_\w+)\s*\(")  # declared, defined or called: a superset of the exported
MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)
PASTE = re.compile(r"(\w+)\s*##\s*(\w+)")
NOT_OURS = {"mf_trace"}  # the harness's hook that NAME.c calls: one per program, not per build


def _pasted(params: list[str], body: str) -> list[tuple[int, str, str]]:
    """(parameter index, text before, text after) for each function name a macro makes of a parameter:
    `name ## _ep(` pastes it, `void name(` uses it as it is."""
    found = [(i, "", "") for i, p in enumerate(params) if p and re.search(rf"(?<!##)\b{p}\s*\(", body)]
    for left, right in PASTE.findall(body):
        if left in params:
            found.append((params.index(left), "", right))
        elif right in params:
            found.append((params.index(right), left, ""))
    return found


def _arguments(text: str, start: int) -> list[str]:
    """The top-level comma-separated arguments of the macro use whose '(' is at text[start]."""
    depth, args, current = 0, [], ""
    for ch in text[start + 1:]:
        if depth == 0 and ch in ",)":
            args.append(current.strip())
            current = ""
            if ch == ")":
                break
            continue
        depth += (ch == "(") - (ch == ")")
        current += ch
    return args


def runtime_symbols(sources: Iterable[str]) -> list[str]:
    """Every mf_* function name of the runtime texts, including those a macro builds by `##`."""
    texts = list(sources)
    names = {n for t in texts for n in FUNCTION.findall(t)}
    for text in texts:
        for macro, params, body in MACRO.findall(text):
            pastes = _pasted([p.strip() for p in params.split(",")], body)
            if not pastes:
                continue
            for other in texts:
                for use in re.finditer(rf"(?<![#\w]){macro}\s*\(", other):
                    if other[:use.start()].rstrip().endswith("define"):
                        continue
                    args = _arguments(other, use.end() - 1)
                    names |= {before + args[i] + after for i, before, after in pastes if i < len(args)}
    return sorted(n for n in names if n.startswith("mf_") and n not in NOT_OURS)


def config_header(name: str, banner: str, symbols: list[str], sizes: dict[str, int] | None = None) -> str:
    """mf_config.h: `#define mf_x NAME_mf_x` for each symbol, so NAME.c and the kernels keep the mf_* names;
    then this build's stack-buffer bounds (KernelSpec.sizes: the largest over its calls) and its
    core's macros (lower/tuning.py)."""
    bounds = [f"#define {k} {v}" for k, v in sorted((sizes or {}).items())]
    lines = [f"/* {CONFIG}: {banner}",
             f" * This build's names for the runtime's functions: each mf_* becomes {name}_mf_*, so libraries",
             " * of several models link into one program. mf_common.h includes it (the copy in its own folder). */",
             "#ifndef MF_CONFIG_H", "#define MF_CONFIG_H", "",
             *(f"#define {s} {name}_{s}" for s in symbols), "",
             *(["/* This build's stack buffers (sized by its largest call) and its core's code choices",
                " * (lower/tuning.py). */", *bounds, ""] if bounds else []),
             "#endif /* MF_CONFIG_H */", ""]
    return "\n".join(lines)
