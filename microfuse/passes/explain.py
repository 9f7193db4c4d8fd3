"""`microfuse build --explain`: the fusion decisions as lines a person reads."""

from __future__ import annotations


def format_decisions(decisions: list[dict]) -> str:
    """One line per candidate: what, which source ops, fused or declined, and why."""
    if not decisions:
        return "fusion: no candidates (or fusion is off)"
    fused = sum(d["decision"] == "fused" for d in decisions)
    lines = [f"fusion: {fused} of {len(decisions)} candidates fused"]
    for d in decisions:
        ops = ",".join(str(i) for i in d["ops"])
        lines.append(f"  {d['decision']:8} {d['pattern']:10} ops {ops:10} {d['reason']}")
    return "\n".join(lines)
