"""The kernel catalog (microfuse/lower/kernels.py) against the C it describes: every params struct
declared as runtime_c/include's headers define it, one spec per exported kernel symbol, a
measured code size for every spec (re-measured here), and every corpus call's params covering
its struct exactly (a missing field would be zero-filled by C without a word)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

from conftest import MODEL_FILES, NEEDS_ARM
from microfuse.pipeline import Options, compile_model
from microfuse.errors import MicrofuseError
from microfuse.lower import kernels

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "runtime_c"


def c_structs(include: Path = RUNTIME / "include") -> dict[str, list[tuple[str, str]]]:
    """{typedef name: [(field, type)]} of every `typedef struct {...} name;` in include/*.h
    (whichever header holds it)."""
    found = {}
    for header in sorted(include.glob("*.h")):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", header.read_text(), flags=re.S).replace("\\\n", " ")
        for body, name in re.findall(r"typedef\s+struct\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
            fields = []
            for decl in filter(None, (" ".join(d.split()) for d in body.split(";"))):
                ctype, rest = re.match(r"((?:const\s+)?(?:unsigned\s+)?\w+)\s+(.*)", decl).groups()
                for part in rest.split(","):
                    fields.append((re.match(r"\s*\**\s*(?:const\s+)?(\w+)", part).group(1),
                                   ctype.replace("const ", "")))
            found[name] = fields
    return found


def test_the_parser_reads_nested_arrays_pointers_and_lists(tmp_path):
    (tmp_path / "x.h").write_text("typedef struct { int32_t a, b[4]; const int8_t *p; /* x; */ mf_t k; } mf_demo;\n")
    assert c_structs(tmp_path) == {"mf_demo": [("a", "int32_t"), ("b", "int32_t"), ("p", "int8_t"), ("k", "mf_t")]}


def test_every_params_struct_is_declared_as_the_headers_define_it():
    structs = c_structs()
    for name, declared in kernels.PARAMS.items():
        assert name in structs, f"{name} is declared in kernels.PARAMS but no header defines it"
        c = structs[name]
        got = [f if isinstance(f, str) else f[0] for f in declared]
        assert got == [f for f, _ in c], f"{name}: declared {got}, the header has {[f for f, _ in c]}"
        for f in declared:  # a nested struct is named with its type; a plain name is one initializer
            if isinstance(f, tuple):
                assert dict(c)[f[0]] == f[1], f"{name}.{f[0]} is a {dict(c)[f[0]]}, declared {f[1]}"
            else:
                assert dict(c)[f] not in kernels.PARAMS, f"{name}.{f} is a nested struct: declare its type"


def exported_kernels(tmp: Path) -> dict[str, str]:
    """{mf_* function symbol: source file} the runtime's sources define (host gcc, no Arm needed)."""
    found = {}
    for source in sorted((RUNTIME / "src").glob("*.c")):
        obj = tmp / f"{source.stem}.o"
        subprocess.run(["gcc", "-O0", f"-I{RUNTIME / 'include'}", "-c", str(source), "-o", str(obj)], check=True)
        nm = subprocess.run(["nm", "--defined-only", str(obj)], capture_output=True, text=True, check=True).stdout
        found.update({line.split()[2]: source.name for line in nm.splitlines()
                      if line.split()[1] == "T" and line.split()[2].startswith("mf_")})
    return found


def test_one_spec_per_exported_kernel_with_its_file_params_and_measured_size(tmp_path):
    exported = exported_kernels(tmp_path)
    for name, file in kernels.HELPERS.items():  # no kernels: no spec, but where the table says
        assert exported.pop(name, None) == file, f"{name}: HELPERS lists it in {file}, which does not define it"
    assert set(kernels.SPECS) == set(exported), (
        f"symbols without a spec: {sorted(set(exported) - set(kernels.SPECS))}; "
        f"specs without a symbol: {sorted(set(kernels.SPECS) - set(exported))}")
    for name, spec in kernels.SPECS.items():
        assert spec.file == exported[name], f"{name} is defined in {exported[name]}, declared in {spec.file}"
        assert spec.params in kernels.PARAMS, f"{name}: params struct {spec.params} is not declared"
        assert spec.code_bytes > 0, f"{name} has no measured code size"
        assert spec.base is None or (spec.base in kernels.SPECS and spec.variant), f"{name}: bad base"


@NEEDS_ARM
def test_code_bytes_are_the_measured_ones():
    """scripts/measure_code_bytes.py re-measures; regenerate the data file when the C changes."""
    loader = importlib.util.spec_from_file_location("measure", ROOT / "scripts" / "measure_code_bytes.py")
    measure = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(measure)
    assert measure.measure_all() == kernels.CODE_BYTES, "stale: run python3 scripts/measure_code_bytes.py"


def test_make_refuses_params_that_miss_a_field():
    spec = kernels.spec("mf_lut_s8")
    with pytest.raises(MicrofuseError, match=r"missing \['lut'\]"):
        kernels.make(spec.name, {"size": 4}, [], [], [])
    with pytest.raises(MicrofuseError, match=r"extra \['bogus'\]"):
        kernels.make(spec.name, {"size": 4, "lut": "NULL", "bogus": 1}, [], [], [])


@pytest.mark.parametrize("optimize", ["size", "balanced"])
def test_every_corpus_call_covers_its_params_struct_exactly(optimize):
    built = 0
    for path in MODEL_FILES:
        try:
            compiled = compile_model(path, Options(name="m", optimize=optimize))
        except MicrofuseError:
            continue  # an unsupported model (its own tests say why)
        built += 1
        for call in [b for c in compiled.calls for b in ([*c.bands.values()] if hasattr(c, "bands") else [c])]:
            want = kernels.fields(call.params_type)
            assert sorted(call.params) == sorted(want), f"{path.name} {call.kernel}: {sorted(call.params)}"
    assert built >= 6


def test_every_kernel_of_an_op_kind_declares_the_planners_default_access_order():
    """plan/inplace.py KIND_ORDER (planning without kernels) is what the specs say; a build plans
    with each call's own KernelSpec.access."""
    from microfuse.plan.inplace import KIND_ORDER

    seen = 0
    for optimize in ("size", "balanced"):
        for path in MODEL_FILES:
            try:
                compiled = compile_model(path, Options(name="m", optimize=optimize))
            except MicrofuseError:
                continue
            for call in compiled.calls:
                if call.op.kind in KIND_ORDER:
                    seen += 1
                    assert call.spec.access == KIND_ORDER[call.op.kind], f"{call.kernel} for {call.op.kind}"
                else:
                    assert call.op.kind not in KIND_ORDER
    assert seen > 50
