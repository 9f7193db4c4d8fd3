"""Today's performance figures, which the suites assert with a small slack so that a regression
fails (an improvement passes: lower the figure here when one lands).

Measured on 2026-12-02 (cascades, issue 15; the one-pass pair kernel, depthwise int16 lanes and the
linear fused ADD, issue 17), instructions and weights again on 2026-12-05 (mixed pair weights and
their stream, depthwise quads, issue 17), and again later that day (the pair kernel's shorter
epilogue and unrolled chunks, cascades in bands of several rows, issue 17), and on 2026-12-06 (the
pair kernel's fixed-shift requantization and flags, the narrow conv's runs, nested cascade rings,
leaner depthwise quads and stride-2 pairs, issue 17): arenas with microfuse.plan / compile_model (bench/arena.py prints the
same), instructions and firmware text with bench/speed.py --check --per-op and the boards' fake
firmware (qemu-mps2-* count in 40-instruction ticks)."""

from __future__ import annotations

KWS, VWW, IC, AD = ("mlperf_kws_dscnn_int8", "mlperf_vww_mobilenetv1_96_int8", "mlperf_ic_resnet8_int8",
                    "mlperf_ad_autoencoder_int8")
MLPERF = (KWS, VWW, IC, AD)

# microfuse.plan.plan() of the graph as read (no passes, no kernels), and forward-only
PLAN_ARENA = {KWS: 8_448, VWW: 36_880, IC: 33_312, AD: 768}
FORWARD_ARENA = {KWS: 10_048, VWW: 36_896, IC: 33_312}
# the default build (balanced): arena bytes and kernel calls
BUILD_ARENA = {KWS: 5_162, VWW: 27_760, IC: 14_848, AD: 768}
BUILD_CALLS = {KWS: 3, VWW: 28, IC: 7, AD: 10}
SIZE_ARENA = {IC: 15_872}  # --optimize size
# the weights the fast kernels keep in flash, per byte of the models' int8 MAC weights (the pair
# kernels' weight stream holds their requantization tables too: lower/fast_gemm.py pair_stream)
WEIGHTS_RATIO = {KWS: 1.3547, VWW: 1.1781, IC: 1.0532, AD: 1.0}
# instructions per invoke of the default build (the same for every input), Cortex-M4F and M7
INSTRUCTIONS = {"qemu-mps2-an386": {KWS: 3_617_080, VWW: 9_558_720, IC: 13_867_280, AD: 362_960},
                "qemu-mps2-an500": {KWS: 3_495_960, VWW: 9_137_240, IC: 13_148_640, AD: 362_960}}
# the boards' firmware with tests/data/fake_lib: .text bytes (QEMU boards: with the idle watchdog), and
# the fake invoke's count
FAKE_TEXT = {"qemu-mps2-an385": 1_948, "qemu-mps2-an386": 2_048, "qemu-mps2-an500": 2_052,
             "qemu-mps3-an547": 2_076, "qemu-microbit": 1_976, "stm32f746g-disco": 2_100,
             "nucleo-l4r5zi": 2_116, "nrf52840dk": 2_036, "rpi-pico": 1_916}  # + stack painting
FAKE_COUNT = {"qemu-mps2-an385": 80, "qemu-mps2-an386": 80, "qemu-mps2-an500": 80, "qemu-mps3-an547": 31,
              "qemu-microbit": 250}

ARENA_SLACK = 16  # bytes: one alignment step of the planner
RELATIVE_SLACK = 0.01  # instructions, code bytes


def at_most(what: str, value: float, today: float, slack: float) -> None:
    """`value` is not worse than today's figure by more than `slack` (in its unit)."""
    assert value <= today + slack, (f"{what} regressed: {value:,} against today's {today:,} "
                                    f"(slack {slack:,}); tests/figures.py holds the figures")


def arena(what: str, value: int, today: int) -> None:
    at_most(f"{what} arena bytes", value, today, ARENA_SLACK)


def relative(what: str, value: float, today: float, slack: float = RELATIVE_SLACK, floor: float = 0) -> None:
    """At most `slack` (a fraction) above today's figure, or `floor` units, whichever is larger."""
    at_most(what, value, today, max(floor, round(today * slack, 4)))
