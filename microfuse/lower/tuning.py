"""Per-core code choices a build fixes at compile time: the macros its mf_config.h defines for the target core.

The kernels' assembly is scheduled for the Cortex-M4's cycle table (docs/cycle-model.md), where a
run of single loads pipelines (1 cycle each after the first) and LDRD costs 3. A Cortex-M7 is
measured in instructions and loads 64 bits a cycle, so there two adjacent words come in one
LDRD. A library built without a target core gets the M4's choices.
"""

from __future__ import annotations

CORE_DEFINES: dict[str, dict[str, int]] = {
    "cortex-m7": {"MF_WIDE_LOADS": 1},  # LDRD for adjacent words in the hot loops
}


def core_defines(core: str | None) -> dict[str, int]:
    """The macros for `core` (a board's cpu or --core), none for other cores."""
    return dict(CORE_DEFINES.get(core or "", {}))
