"""Number, byte, shape and text formatting shared by the report's views, plus op-kind colour families."""

from __future__ import annotations

# Op kind -> colour family (a CSS class suffix). Anything unlisted is "other"; the class names are
# fixed strings so nothing taken from a model ever lands in a class attribute.
FAMILIES = {
    "conv": ("CONV_2D", "CONV_3D", "TRANSPOSE_CONV"),
    "dwconv": ("DEPTHWISE_CONV_2D",),
    "dense": ("FULLY_CONNECTED", "BATCH_MATMUL"),
    "pool": ("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D", "MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN"),
    "eltwise": ("ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM", "RSQRT", "SQRT"),
    "act": ("RELU", "RELU6", "RELU_N1_TO_1", "LOGISTIC", "TANH", "SOFTMAX", "LOG_SOFTMAX", "HARD_SWISH",
            "LEAKY_RELU", "PRELU", "QUANTIZE", "DEQUANTIZE"),
    "shape": ("RESHAPE", "SQUEEZE", "EXPAND_DIMS", "CONCATENATION", "PAD", "PADV2", "TRANSPOSE",
              "STRIDED_SLICE", "SLICE", "PACK", "UNPACK", "SHAPE", "SPLIT", "SPLIT_V", "GATHER"),
}
_FAMILY_OF = {kind: fam for fam, kinds in FAMILIES.items() for kind in kinds}


def family(kind: str) -> str:
    """Colour family of an op kind; a fused call kind like 'conv_2d+add' takes its first op's."""
    head = str(kind).split("+")[0].strip().upper()
    return _FAMILY_OF.get(head, "other")


def count(n) -> str:
    """An exact integer with thousands separators; '—' when unknown."""
    return "—" if n is None else f"{int(n):,}"


def human_bytes(n) -> str:
    """Bytes for a quick read: 980 B, 9.8 KiB, 3.2 MiB."""
    if n is None:
        return "—"
    n = int(n)
    if abs(n) < 1024:
        return f"{n} B"
    if abs(n) < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.2f} MiB"


def si(n) -> str:
    """A large count in engineering units: 950, 12.3 k, 2.66 M, 1.10 G."""
    if n is None:
        return "—"
    n = int(n)
    for unit, scale in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if abs(n) >= scale:
            value = n / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return str(n)


def percent(part, whole) -> str:
    if not whole:
        return "—"
    return f"{100.0 * part / whole:.1f}%"


def shape(dims) -> str:
    """A shape as firmware people write it: 1×49×10×1 ('scalar' for rank 0)."""
    dims = list(dims or [])
    return "×".join(str(int(d)) for d in dims) if dims else "scalar"


def clip(text: str, limit: int) -> str:
    """Cut text to at most `limit` characters, marking the cut with an ellipsis."""
    text = str(text)
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def num(x: float) -> str:
    """A coordinate for SVG: at most one decimal, no trailing '.0' (keeps output byte-stable)."""
    value = round(float(x), 1)
    return str(int(value)) if value == int(value) else f"{value:.1f}"


def short_name(name: str) -> str:
    """A tensor or op name short enough for a label: TFLite joins several names with ';' and
    nests scopes with '/'; the first name's last two scopes usually say what it is."""
    first = str(name).split(";")[0]
    return "/".join(first.split("/")[-2:])
