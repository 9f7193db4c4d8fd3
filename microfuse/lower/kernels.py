"""The kernel catalog: one KernelSpec per runtime_c entry point, and the params structs' fields.

Everything Python knows about a C kernel is declared here, once: its params struct (whose
fields PARAMS lists as the header declares them; tests/unit/test_kernel_specs.py parses
runtime_c/include and compares), its source file, when a specialised kernel fits an op and
how it turns the reference params into its own (lower/fast.py), its scratch, whether it can
run backward, its access order (the clause of plan/inplace.py's contract it follows), its
cost per MAC (measured on qemu-mps2-an386 with bench/speed.py --per-op) and its code bytes
(measured by scripts/measure_code_bytes.py into code_bytes.json). A fused variant names the
kernel whose loop it runs (`base`) and what it adds (`variant`): an epilogue ("lut", "add",
"sub", "rsub", "mul"; float "ep", "ep_res"), a reduction ("gap", "pool"), a constant operand
("k"), or N sibling outputs ("x2".."x4"). The lowerings find kernels only through `spec`,
`variant_of` and `variants`, and build calls with `make`, which checks the params cover the
struct exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import MicrofuseError
from ..ir import Op
from . import fast, fast_rows
from .call import Call
from .common import gap_scratch, pool_scratch

MAC_COST = 3  # reference kernels: load weight, load input, multiply-accumulate
# access orders, the clauses of plan/inplace.py's contract: element i read, element i written
# (BINARY: of each operand with the output's shape); output pixel after its input window; output
# row after its input row. None: the output may not overlap any input.
ELEMENT, BINARY, WINDOW, ROW = "element-wise", "element-wise binary", "pixel window", "row"
CODE_BYTES_FILE = Path(__file__).with_name("code_bytes.json")


@dataclass(frozen=True)
class KernelSpec:
    """One C entry point (see the module docstring)."""

    name: str
    params: str  # the C params struct
    file: str  # runtime_c/src/*.c defining it
    base: str | None = None  # a fused variant: the kernel whose loop it runs
    variant: str = ""
    fits: Callable[[Op, str], bool] | None = None  # (op, --optimize level); None: fits every op
    prepare: Callable[[Op, dict], dict] | None = None  # reference params -> this kernel's
    scratch: Callable[[Op], int] | None = None  # arena scratch bytes
    reversible: bool = False  # has a `reverse` field: can run its units last first
    access: str | None = None
    mac_cost: float = MAC_COST
    # Build-wide bounds of the kernel's stack buffers: params -> {macro: bytes or values}; the build
    # defines each macro in mf_config.h as its largest value over the calls (emit/c.py).
    sizes: Callable[[dict], dict[str, int]] | None = None
    # Build-wide choice of the params' form: (params, the build's sizes over all its calls) ->
    # params; run once every call is chosen (lower/call.py finish_calls), before emission.
    finish: Callable[[dict, dict], dict] | None = None

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file,)

    @property
    def code_bytes(self) -> int:
        return CODE_BYTES[self.name]

    @property
    def fields(self) -> tuple[str, ...]:
        return fields(self.params)

    def admits(self, op: Op, level: str) -> bool:
        return self.fits is None or self.fits(op, level)


PARAMS: dict[str, tuple] = {
    'mf_addsub_params': ('b', 'input1_offset', 'input2_offset', 'output_offset', 'left_shift',
        'input1_multiplier', 'input1_shift', 'input2_multiplier', 'input2_shift', 'output_multiplier',
        'output_shift', 'act_min', 'act_max', 'constant', 'constant_index',),
    'mf_affine_params': ('size', 'scale', 'zero_point',),
    'mf_binary_f32_params': ('b', 'act_min', 'act_max', 'constant', 'constant_index',),
    'mf_concat_params': ('n_inputs', 'outer', 'chunk',),
    'mf_conv2d_f32_ep_params': (('k', 'mf_conv2d_f32_params'), ('ep', 'mf_epilogue_f32'),),
    'mf_conv2d_f32_gap_params': (('k', 'mf_conv2d_f32_params'), ('ep', 'mf_epilogue_f32'), ('gap',
        'mf_gap_f32'),),
    'mf_conv2d_f32_params': ('batches', 'in_h', 'in_w', 'in_c', 'out_h', 'out_w', 'out_c', 'k_h', 'k_w',
        'stride_h', 'stride_w', 'dilation_h', 'dilation_w', 'pad_h', 'pad_w', 'act_min', 'act_max', 'weights',
        'bias', 'out_stride',),
    'mf_conv2d_f32_pool_params': (('k', 'mf_conv2d_f32_params'), ('ep', 'mf_epilogue_f32'), ('pool',
        'mf_pool_rows_f32'),),
    'mf_conv2d_s8_ep_params': (('k', 'mf_conv2d_s8_params'), ('ep', 'mf_epilogue_s8'),),
    'mf_conv2d_s8_gap_params': (('k', 'mf_conv2d_s8_params'), ('ep', 'mf_epilogue_s8'), ('gap',
        'mf_gap_s8'),),
    'mf_conv2d_s8_gemm_ep_params': (('k', 'mf_conv2d_s8_gemm_params'), ('ep', 'mf_epilogue_s8'),),
    'mf_conv2d_s8_gemm_params': ('batches', 'in_h', 'in_w', 'in_c', 'out_h', 'out_w', 'out_c', 'k_h', 'k_w',
        'stride_h', 'stride_w', 'dilation_h', 'dilation_w', 'pad_h', 'pad_w', 'depth', 'in_zero_point',
        'act_min', 'act_max', 'clamp', 'lshift', 'reverse', 'weights', 'quant', 'zrow', 'addq',
        'out_stride',),
    'mf_conv2d_s8_multi_params': (('k', 'mf_conv2d_s8_params'), ('o', 'mf_multi_outputs'),),
    'mf_conv2d_s8_params': ('batches', 'in_h', 'in_w', 'in_c', 'out_h', 'out_w', 'out_c', 'k_h', 'k_w',
        'stride_h', 'stride_w', 'dilation_h', 'dilation_w', 'pad_h', 'pad_w', 'in_zero_point',
        'out_zero_point', 'act_min', 'act_max', 'weights', 'bias', 'mult', 'shift', 'out_stride',),
    'mf_conv2d_s8_pool_params': (('k', 'mf_conv2d_s8_params'), ('ep', 'mf_epilogue_s8'), ('pool',
        'mf_pool_rows_s8'),),
    'mf_dwconv2d_f32_ep_params': (('k', 'mf_dwconv2d_f32_params'), ('ep', 'mf_epilogue_f32'),),
    'mf_dwconv2d_f32_gap_params': (('k', 'mf_dwconv2d_f32_params'), ('ep', 'mf_epilogue_f32'), ('gap',
        'mf_gap_f32'),),
    'mf_dwconv2d_f32_params': ('batches', 'in_h', 'in_w', 'in_c', 'out_h', 'out_w', 'out_c', 'k_h', 'k_w',
        'stride_h', 'stride_w', 'dilation_h', 'dilation_w', 'pad_h', 'pad_w', 'depth_multiplier', 'act_min',
        'act_max', 'weights', 'bias', 'out_stride',),
    'mf_dwconv2d_f32_pool_params': (('k', 'mf_dwconv2d_f32_params'), ('ep', 'mf_epilogue_f32'), ('pool',
        'mf_pool_rows_f32'),),
    'mf_dwconv2d_s8_dsp_ep_params': (('k', 'mf_dwconv2d_s8_dsp_params'), ('ep', 'mf_epilogue_s8'),),
    'mf_dwconv2d_s8_dsp_params': ('batches', 'in_h', 'in_w', 'in_c', 'out_h', 'out_w', 'out_c', 'k_h', 'k_w',
        'stride_h', 'stride_w', 'dilation_h', 'dilation_w', 'pad_h', 'pad_w', 'in_zero_point', 'act_min',
        'act_max', 'clamp', 'lshift', 'reverse', 'weights', 'quant', 'zrow', 'addq', 'out_stride',),
    'mf_dwconv2d_s8_ep_params': (('k', 'mf_dwconv2d_s8_params'), ('ep', 'mf_epilogue_s8'),),
    'mf_dwconv2d_s8_gap_params': (('k', 'mf_dwconv2d_s8_params'), ('ep', 'mf_epilogue_s8'), ('gap',
        'mf_gap_s8'),),
    'mf_dwconv2d_s8_params': ('batches', 'in_h', 'in_w', 'in_c', 'out_h', 'out_w', 'out_c', 'k_h', 'k_w',
        'stride_h', 'stride_w', 'dilation_h', 'dilation_w', 'pad_h', 'pad_w', 'depth_multiplier',
        'in_zero_point', 'out_zero_point', 'act_min', 'act_max', 'weights', 'bias', 'mult', 'shift',
        'reverse', 'out_stride',),
    'mf_dwconv2d_s8_pool_params': (('k', 'mf_dwconv2d_s8_params'), ('ep', 'mf_epilogue_s8'), ('pool',
        'mf_pool_rows_s8'),),
    'mf_epilogue_f32': ('steps', 'kind', 'alpha', 'act_min', 'act_max',),
    'mf_epilogue_s8': ('pre', 'v_offset', 'r_offset', 'left_shift', 'v_multiplier', 'v_shift', 'r_multiplier',
        'r_shift', 'output_multiplier', 'output_shift', 'output_offset', 'act_min', 'act_max', 'post',),
    'mf_fc_f32_ep_params': (('k', 'mf_fc_f32_params'), ('ep', 'mf_epilogue_f32'),),
    'mf_fc_f32_params': ('rows', 'depth', 'units', 'act_min', 'act_max', 'weights', 'bias', 'out_stride',),
    'mf_fc_s8_dsp_ep_params': (('k', 'mf_fc_s8_dsp_params'), ('ep', 'mf_epilogue_s8'),),
    'mf_fc_s8_dsp_params': ('rows', 'depth', 'units', 'act_min', 'act_max', 'clamp', 'lshift', 'weights',
        'quant', 'addq', 'out_stride',),
    'mf_fc_s8_ep_params': (('k', 'mf_fc_s8_params'), ('ep', 'mf_epilogue_s8'),),
    'mf_fc_s8_multi_params': (('k', 'mf_fc_s8_pc_params'), ('o', 'mf_multi_outputs'),),
    'mf_fc_s8_params': ('rows', 'depth', 'units', 'out_zero_point', 'act_min', 'act_max', 'mult', 'shift',
        'weights', 'bias', 'out_stride',),
    'mf_fc_s8_pc_ep_params': (('k', 'mf_fc_s8_pc_params'), ('ep', 'mf_epilogue_s8'),),
    'mf_fc_s8_pc_params': ('rows', 'depth', 'units', 'out_zero_point', 'act_min', 'act_max', 'weights',
        'bias', 'mult', 'shift', 'out_stride',),
    'mf_gap_f32': ('count', 'act_min', 'act_max',),
    'mf_gap_s8': ('count', 'mean', 'act_min', 'act_max', 'in_zero_point', 'multiplier', 'shift',
        'out_zero_point',),
    'mf_lut_params': ('size', 'lut',),
    'mf_mean_params': ('n_kept', 'kept_shape', 'kept_stride', 'n_reduced', 'reduced_shape', 'reduced_stride',
        'count', 'input_zero_point', 'output_zero_point', 'multiplier', 'shift',),
    'mf_mul_s8_params': ('b', 'input1_offset', 'input2_offset', 'output_offset', 'output_multiplier',
        'output_shift', 'act_min', 'act_max', 'constant', 'constant_index',),
    'mf_multi_outputs': ('n_outputs', 'out_c', 'out_stride', 'out_zero_point', 'act_min', 'act_max',),
    'mf_pad_params': ('in_shape', 'out_shape', 'before', 'pad_value',),
    'mf_pool_f32_ep_params': (('k', 'mf_pool_f32_params'), ('ep', 'mf_epilogue_f32'),),
    'mf_pool_f32_params': ('batches', 'in_h', 'in_w', 'channels', 'out_h', 'out_w', 'filter_h', 'filter_w',
        'stride_h', 'stride_w', 'pad_h', 'pad_w', 'act_min', 'act_max', 'out_stride',),
    'mf_pool_rows_f32': ('average', 'out_h', 'out_w', 'filter_h', 'filter_w', 'stride_h', 'stride_w', 'pad_h',
        'pad_w', 'ring_rows', 'act_min', 'act_max', 'out_stride',),
    'mf_pool_rows_s8': ('average', 'out_h', 'out_w', 'filter_h', 'filter_w', 'stride_h', 'stride_w', 'pad_h',
        'pad_w', 'ring_rows', 'act_min', 'act_max', 'out_stride',),
    'mf_pool_s8_ep_params': (('k', 'mf_pool_s8_params'), ('ep', 'mf_epilogue_s8'),),
    'mf_pool_s8_params': ('batches', 'in_h', 'in_w', 'channels', 'out_h', 'out_w', 'filter_h', 'filter_w',
        'stride_h', 'stride_w', 'pad_h', 'pad_w', 'act_min', 'act_max', 'out_stride',),
    'mf_softmax_f32_params': ('outer', 'depth', 'beta',),
    'mf_softmax_s8_params': ('outer', 'depth', 'exp_lut',),
    'mf_space_batch_params': ('in_shape', 'out_shape', 'block_h', 'block_w', 'pad_top', 'pad_left',
        'pad_value',),
    'mf_unary_f32_params': ('size', 'alpha',),
}

_SPECS = [
    KernelSpec('mf_add_f32', 'mf_binary_f32_params', 'mf_binary_f32.c', access=BINARY),
    KernelSpec('mf_add_f32_k', 'mf_binary_f32_params', 'mf_binary_f32.c', base='mf_add_f32', variant='k', access=BINARY),
    KernelSpec('mf_add_s8', 'mf_addsub_params', 'mf_binary_s8.c', access=BINARY),
    KernelSpec('mf_add_s8_k', 'mf_addsub_params', 'mf_binary_s8.c', base='mf_add_s8', variant='k', access=BINARY),
    KernelSpec('mf_batch_to_space_f32', 'mf_space_batch_params', 'mf_space_batch.c'),
    KernelSpec('mf_batch_to_space_s8', 'mf_space_batch_params', 'mf_space_batch.c'),
    KernelSpec('mf_concat_f32', 'mf_concat_params', 'mf_concat.c'),
    KernelSpec('mf_concat_s8', 'mf_concat_params', 'mf_concat.c'),
    KernelSpec('mf_conv2d_f32', 'mf_conv2d_f32_params', 'mf_conv2d_f32.c', access=WINDOW),
    KernelSpec('mf_conv2d_f32_ep', 'mf_conv2d_f32_ep_params', 'mf_conv2d_f32_ep.c', base='mf_conv2d_f32', variant='ep', access=WINDOW),
    KernelSpec('mf_conv2d_f32_ep_res', 'mf_conv2d_f32_ep_params', 'mf_conv2d_f32_ep.c', base='mf_conv2d_f32', variant='ep_res', access=WINDOW),
    KernelSpec('mf_conv2d_f32_gap', 'mf_conv2d_f32_gap_params', 'mf_conv2d_f32_gap.c', base='mf_conv2d_f32', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_f32_gap_ep', 'mf_conv2d_f32_gap_params', 'mf_conv2d_f32_gap.c', base='mf_conv2d_f32_ep', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_f32_gap_ep_res', 'mf_conv2d_f32_gap_params', 'mf_conv2d_f32_gap.c', base='mf_conv2d_f32_ep_res', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_f32_pool', 'mf_conv2d_f32_pool_params', 'mf_conv2d_f32_pool.c', base='mf_conv2d_f32', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_f32_pool_ep', 'mf_conv2d_f32_pool_params', 'mf_conv2d_f32_pool.c', base='mf_conv2d_f32_ep', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_f32_pool_ep_res', 'mf_conv2d_f32_pool_params', 'mf_conv2d_f32_pool.c', base='mf_conv2d_f32_ep_res', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_s8', 'mf_conv2d_s8_params', 'mf_conv2d_s8.c', access=WINDOW),
    KernelSpec('mf_conv2d_s8_add', 'mf_conv2d_s8_ep_params', 'mf_conv2d_s8_ep.c', base='mf_conv2d_s8', variant='add', access=WINDOW),
    KernelSpec('mf_conv2d_s8_gap', 'mf_conv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_conv2d_s8', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_s8_gap_add', 'mf_conv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_conv2d_s8_add', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_s8_gap_lut', 'mf_conv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_conv2d_s8_lut', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_s8_gap_mul', 'mf_conv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_conv2d_s8_mul', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_s8_gap_rsub', 'mf_conv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_conv2d_s8_rsub', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_s8_gap_sub', 'mf_conv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_conv2d_s8_sub', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_conv2d_s8_gemm', 'mf_conv2d_s8_gemm_params', 'mf_conv2d_s8_gemm.c', fits=fast.dense(fast.conv_gemm_fits), prepare=fast.conv_gemm_prepare, reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_add', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_ep.c', base='mf_conv2d_s8_gemm', variant='add', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_lut', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_ep.c', base='mf_conv2d_s8_gemm', variant='lut', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_mul', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_ep.c', base='mf_conv2d_s8_gemm', variant='mul', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_rsub', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_ep.c', base='mf_conv2d_s8_gemm', variant='rsub', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_strided', 'mf_conv2d_s8_gemm_params', 'mf_conv2d_s8_gemm_strided.c', fits=fast.strided(fast.conv_gemm_fits), prepare=fast.conv_gemm_prepare, reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_strided_add', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_strided_ep.c', base='mf_conv2d_s8_gemm_strided', variant='add', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_strided_lut', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_strided_ep.c', base='mf_conv2d_s8_gemm_strided', variant='lut', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_strided_mul', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_strided_ep.c', base='mf_conv2d_s8_gemm_strided', variant='mul', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_strided_rsub', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_strided_ep.c', base='mf_conv2d_s8_gemm_strided', variant='rsub', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_strided_sub', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_strided_ep.c', base='mf_conv2d_s8_gemm_strided', variant='sub', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_gemm_sub', 'mf_conv2d_s8_gemm_ep_params', 'mf_conv2d_s8_gemm_ep.c', base='mf_conv2d_s8_gemm', variant='sub', reversible=True, mac_cost=1.4, access=WINDOW),
    KernelSpec('mf_conv2d_s8_lut', 'mf_conv2d_s8_ep_params', 'mf_conv2d_s8_ep.c', base='mf_conv2d_s8', variant='lut', access=WINDOW),
    KernelSpec('mf_conv2d_s8_mul', 'mf_conv2d_s8_ep_params', 'mf_conv2d_s8_ep.c', base='mf_conv2d_s8', variant='mul', access=WINDOW),
    KernelSpec('mf_conv2d_s8_pool', 'mf_conv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_conv2d_s8', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_s8_pool_add', 'mf_conv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_conv2d_s8_add', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_s8_pool_lut', 'mf_conv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_conv2d_s8_lut', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_s8_pool_mul', 'mf_conv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_conv2d_s8_mul', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_s8_pool_rsub', 'mf_conv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_conv2d_s8_rsub', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_s8_pool_sub', 'mf_conv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_conv2d_s8_sub', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_conv2d_s8_rsub', 'mf_conv2d_s8_ep_params', 'mf_conv2d_s8_ep.c', base='mf_conv2d_s8', variant='rsub', access=WINDOW),
    KernelSpec('mf_conv2d_s8_sub', 'mf_conv2d_s8_ep_params', 'mf_conv2d_s8_ep.c', base='mf_conv2d_s8', variant='sub', access=WINDOW),
    KernelSpec('mf_conv2d_s8_x2', 'mf_conv2d_s8_multi_params', 'mf_conv2d_s8_multi.c', base='mf_conv2d_s8', variant='x2'),
    KernelSpec('mf_conv2d_s8_x3', 'mf_conv2d_s8_multi_params', 'mf_conv2d_s8_multi.c', base='mf_conv2d_s8', variant='x3'),
    KernelSpec('mf_conv2d_s8_x4', 'mf_conv2d_s8_multi_params', 'mf_conv2d_s8_multi.c', base='mf_conv2d_s8', variant='x4'),
    KernelSpec('mf_dequantize_s8_f32', 'mf_affine_params', 'mf_dequantize_f32.c', access=ELEMENT),
    KernelSpec('mf_dequantize_u8_f32', 'mf_affine_params', 'mf_dequantize_f32.c', access=ELEMENT),
    KernelSpec('mf_dwconv2d_f32', 'mf_dwconv2d_f32_params', 'mf_dwconv2d_f32.c', access=WINDOW),
    KernelSpec('mf_dwconv2d_f32_ep', 'mf_dwconv2d_f32_ep_params', 'mf_dwconv2d_f32_ep.c', base='mf_dwconv2d_f32', variant='ep', access=WINDOW),
    KernelSpec('mf_dwconv2d_f32_ep_res', 'mf_dwconv2d_f32_ep_params', 'mf_dwconv2d_f32_ep.c', base='mf_dwconv2d_f32', variant='ep_res', access=WINDOW),
    KernelSpec('mf_dwconv2d_f32_gap', 'mf_dwconv2d_f32_gap_params', 'mf_conv2d_f32_gap.c', base='mf_dwconv2d_f32', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_f32_gap_ep', 'mf_dwconv2d_f32_gap_params', 'mf_conv2d_f32_gap.c', base='mf_dwconv2d_f32_ep', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_f32_gap_ep_res', 'mf_dwconv2d_f32_gap_params', 'mf_conv2d_f32_gap.c', base='mf_dwconv2d_f32_ep_res', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_f32_pool', 'mf_dwconv2d_f32_pool_params', 'mf_conv2d_f32_pool.c', base='mf_dwconv2d_f32', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_f32_pool_ep', 'mf_dwconv2d_f32_pool_params', 'mf_conv2d_f32_pool.c', base='mf_dwconv2d_f32_ep', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_f32_pool_ep_res', 'mf_dwconv2d_f32_pool_params', 'mf_conv2d_f32_pool.c', base='mf_dwconv2d_f32_ep_res', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_s8', 'mf_dwconv2d_s8_params', 'mf_dwconv2d_s8.c', reversible=True, access=WINDOW),
    KernelSpec('mf_dwconv2d_s8_add', 'mf_dwconv2d_s8_ep_params', 'mf_dwconv2d_s8_ep.c', base='mf_dwconv2d_s8', variant='add', reversible=True, access=WINDOW),
    KernelSpec('mf_dwconv2d_s8_dsp', 'mf_dwconv2d_s8_dsp_params', 'mf_dwconv2d_s8_dsp.c', fits=fast.dense(fast.dw_fits), prepare=fast.dw_prepare, reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_add', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_ep.c', base='mf_dwconv2d_s8_dsp', variant='add', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_lut', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_ep.c', base='mf_dwconv2d_s8_dsp', variant='lut', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_mul', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_ep.c', base='mf_dwconv2d_s8_dsp', variant='mul', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_rsub', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_ep.c', base='mf_dwconv2d_s8_dsp', variant='rsub', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_strided', 'mf_dwconv2d_s8_dsp_params', 'mf_dwconv2d_s8_dsp_strided.c', fits=fast.strided(fast.dw_fits), prepare=fast.dw_prepare, reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_strided_add', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_strided_ep.c', base='mf_dwconv2d_s8_dsp_strided', variant='add', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_strided_lut', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_strided_ep.c', base='mf_dwconv2d_s8_dsp_strided', variant='lut', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_strided_mul', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_strided_ep.c', base='mf_dwconv2d_s8_dsp_strided', variant='mul', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_strided_rsub', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_strided_ep.c', base='mf_dwconv2d_s8_dsp_strided', variant='rsub', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_strided_sub', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_strided_ep.c', base='mf_dwconv2d_s8_dsp_strided', variant='sub', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_dsp_sub', 'mf_dwconv2d_s8_dsp_ep_params', 'mf_dwconv2d_s8_dsp_ep.c', base='mf_dwconv2d_s8_dsp', variant='sub', reversible=True, mac_cost=4, access=WINDOW, sizes=fast.dw_ep_sizes),
    KernelSpec('mf_dwconv2d_s8_gap', 'mf_dwconv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_dwconv2d_s8', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_s8_gap_add', 'mf_dwconv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_dwconv2d_s8_add', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_s8_gap_lut', 'mf_dwconv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_dwconv2d_s8_lut', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_s8_gap_mul', 'mf_dwconv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_dwconv2d_s8_mul', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_s8_gap_rsub', 'mf_dwconv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_dwconv2d_s8_rsub', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_s8_gap_sub', 'mf_dwconv2d_s8_gap_params', 'mf_conv2d_s8_gap.c', base='mf_dwconv2d_s8_sub', variant='gap', scratch=gap_scratch),
    KernelSpec('mf_dwconv2d_s8_lut', 'mf_dwconv2d_s8_ep_params', 'mf_dwconv2d_s8_ep.c', base='mf_dwconv2d_s8', variant='lut', reversible=True, access=WINDOW),
    KernelSpec('mf_dwconv2d_s8_mul', 'mf_dwconv2d_s8_ep_params', 'mf_dwconv2d_s8_ep.c', base='mf_dwconv2d_s8', variant='mul', reversible=True, access=WINDOW),
    KernelSpec('mf_dwconv2d_s8_pool', 'mf_dwconv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_dwconv2d_s8', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_s8_pool_add', 'mf_dwconv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_dwconv2d_s8_add', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_s8_pool_lut', 'mf_dwconv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_dwconv2d_s8_lut', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_s8_pool_mul', 'mf_dwconv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_dwconv2d_s8_mul', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_s8_pool_rsub', 'mf_dwconv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_dwconv2d_s8_rsub', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_s8_pool_sub', 'mf_dwconv2d_s8_pool_params', 'mf_conv2d_s8_pool.c', base='mf_dwconv2d_s8_sub', variant='pool', scratch=pool_scratch),
    KernelSpec('mf_dwconv2d_s8_rsub', 'mf_dwconv2d_s8_ep_params', 'mf_dwconv2d_s8_ep.c', base='mf_dwconv2d_s8', variant='rsub', reversible=True, access=WINDOW),
    KernelSpec('mf_dwconv2d_s8_sub', 'mf_dwconv2d_s8_ep_params', 'mf_dwconv2d_s8_ep.c', base='mf_dwconv2d_s8', variant='sub', reversible=True, access=WINDOW),
    KernelSpec('mf_fc_f32', 'mf_fc_f32_params', 'mf_fc_f32.c', access=ROW),
    KernelSpec('mf_fc_f32_ep', 'mf_fc_f32_ep_params', 'mf_fc_f32_ep.c', base='mf_fc_f32', variant='ep', access=ROW),
    KernelSpec('mf_fc_f32_ep_res', 'mf_fc_f32_ep_params', 'mf_fc_f32_ep.c', base='mf_fc_f32', variant='ep_res', access=ROW),
    KernelSpec('mf_fc_s8', 'mf_fc_s8_params', 'mf_fc_s8.c', access=ROW),
    KernelSpec('mf_fc_s8_add', 'mf_fc_s8_ep_params', 'mf_fc_s8_ep.c', base='mf_fc_s8', variant='add', access=ROW),
    KernelSpec('mf_fc_s8_dsp8', 'mf_fc_s8_dsp_params', 'mf_fc_s8_dsp8.c', fits=fast.dense(fast_rows.fc_row_fits), prepare=fast.fc_prepare, mac_cost=1.35, access=ROW),
    KernelSpec('mf_fc_s8_dsp', 'mf_fc_s8_dsp_params', 'mf_fc_s8_dsp.c', fits=fast.dense(fast.fc_fits), prepare=fast.fc_prepare, mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_add', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_ep.c', base='mf_fc_s8_dsp', variant='add', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_lut', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_ep.c', base='mf_fc_s8_dsp', variant='lut', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_mul', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_ep.c', base='mf_fc_s8_dsp', variant='mul', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_rsub', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_ep.c', base='mf_fc_s8_dsp', variant='rsub', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_strided', 'mf_fc_s8_dsp_params', 'mf_fc_s8_dsp_strided.c', fits=fast.strided(fast.fc_fits), prepare=fast.fc_prepare, mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_strided_add', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_strided_ep.c', base='mf_fc_s8_dsp_strided', variant='add', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_strided_lut', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_strided_ep.c', base='mf_fc_s8_dsp_strided', variant='lut', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_strided_mul', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_strided_ep.c', base='mf_fc_s8_dsp_strided', variant='mul', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_strided_rsub', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_strided_ep.c', base='mf_fc_s8_dsp_strided', variant='rsub', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_strided_sub', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_strided_ep.c', base='mf_fc_s8_dsp_strided', variant='sub', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_dsp_sub', 'mf_fc_s8_dsp_ep_params', 'mf_fc_s8_dsp_ep.c', base='mf_fc_s8_dsp', variant='sub', mac_cost=1.4, access=ROW),
    KernelSpec('mf_fc_s8_lut', 'mf_fc_s8_ep_params', 'mf_fc_s8_ep.c', base='mf_fc_s8', variant='lut', access=ROW),
    KernelSpec('mf_fc_s8_mul', 'mf_fc_s8_ep_params', 'mf_fc_s8_ep.c', base='mf_fc_s8', variant='mul', access=ROW),
    KernelSpec('mf_fc_s8_pc', 'mf_fc_s8_pc_params', 'mf_fc_s8_pc.c', access=ROW),
    KernelSpec('mf_fc_s8_pc_add', 'mf_fc_s8_pc_ep_params', 'mf_fc_s8_pc_ep.c', base='mf_fc_s8_pc', variant='add', access=ROW),
    KernelSpec('mf_fc_s8_pc_lut', 'mf_fc_s8_pc_ep_params', 'mf_fc_s8_pc_ep.c', base='mf_fc_s8_pc', variant='lut', access=ROW),
    KernelSpec('mf_fc_s8_pc_mul', 'mf_fc_s8_pc_ep_params', 'mf_fc_s8_pc_ep.c', base='mf_fc_s8_pc', variant='mul', access=ROW),
    KernelSpec('mf_fc_s8_pc_rsub', 'mf_fc_s8_pc_ep_params', 'mf_fc_s8_pc_ep.c', base='mf_fc_s8_pc', variant='rsub', access=ROW),
    KernelSpec('mf_fc_s8_pc_sub', 'mf_fc_s8_pc_ep_params', 'mf_fc_s8_pc_ep.c', base='mf_fc_s8_pc', variant='sub', access=ROW),
    KernelSpec('mf_fc_s8_rsub', 'mf_fc_s8_ep_params', 'mf_fc_s8_ep.c', base='mf_fc_s8', variant='rsub', access=ROW),
    KernelSpec('mf_fc_s8_sub', 'mf_fc_s8_ep_params', 'mf_fc_s8_ep.c', base='mf_fc_s8', variant='sub', access=ROW),
    KernelSpec('mf_fc_s8_x2', 'mf_fc_s8_multi_params', 'mf_fc_s8_multi.c', base='mf_fc_s8', variant='x2'),
    KernelSpec('mf_fc_s8_x3', 'mf_fc_s8_multi_params', 'mf_fc_s8_multi.c', base='mf_fc_s8', variant='x3'),
    KernelSpec('mf_fc_s8_x4', 'mf_fc_s8_multi_params', 'mf_fc_s8_multi.c', base='mf_fc_s8', variant='x4'),
    KernelSpec('mf_hard_swish_f32', 'mf_unary_f32_params', 'mf_unary_f32.c', access=ELEMENT),
    KernelSpec('mf_leaky_relu_f32', 'mf_unary_f32_params', 'mf_unary_f32.c', access=ELEMENT),
    KernelSpec('mf_logistic_f32', 'mf_unary_f32_params', 'mf_unary_f32.c', access=ELEMENT),
    KernelSpec('mf_lut_s8', 'mf_lut_params', 'mf_lut_s8.c', access=ELEMENT),
    KernelSpec('mf_lut_s8_u8', 'mf_lut_params', 'mf_lut_s8.c', access=ELEMENT),
    KernelSpec('mf_lut_u8_s8', 'mf_lut_params', 'mf_lut_s8.c', access=ELEMENT),
    KernelSpec('mf_mean_f32', 'mf_mean_params', 'mf_mean.c'),
    KernelSpec('mf_mean_s8', 'mf_mean_params', 'mf_mean.c'),
    KernelSpec('mf_mul_f32', 'mf_binary_f32_params', 'mf_binary_f32.c', access=BINARY),
    KernelSpec('mf_mul_f32_k', 'mf_binary_f32_params', 'mf_binary_f32.c', base='mf_mul_f32', variant='k', access=BINARY),
    KernelSpec('mf_mul_s8', 'mf_mul_s8_params', 'mf_binary_s8.c', access=BINARY),
    KernelSpec('mf_mul_s8_k', 'mf_mul_s8_params', 'mf_binary_s8.c', base='mf_mul_s8', variant='k', access=BINARY),
    KernelSpec('mf_pad_f32', 'mf_pad_params', 'mf_pad.c'),
    KernelSpec('mf_pad_s8', 'mf_pad_params', 'mf_pad.c'),
    KernelSpec('mf_pool_avg_f32', 'mf_pool_f32_params', 'mf_pool_avg_f32.c', access=WINDOW),
    KernelSpec('mf_pool_avg_f32_ep', 'mf_pool_f32_ep_params', 'mf_pool_avg_f32_ep.c', base='mf_pool_avg_f32', variant='ep', access=WINDOW),
    KernelSpec('mf_pool_avg_f32_ep_res', 'mf_pool_f32_ep_params', 'mf_pool_avg_f32_ep.c', base='mf_pool_avg_f32', variant='ep_res', access=WINDOW),
    KernelSpec('mf_pool_avg_s8', 'mf_pool_s8_params', 'mf_pool_avg_s8.c', access=WINDOW),
    KernelSpec('mf_pool_avg_s8_lut', 'mf_pool_s8_ep_params', 'mf_pool_avg_s8_ep.c', base='mf_pool_avg_s8', variant='lut', access=WINDOW),
    KernelSpec('mf_pool_max_f32', 'mf_pool_f32_params', 'mf_pool_max_f32.c', access=WINDOW),
    KernelSpec('mf_pool_max_f32_ep', 'mf_pool_f32_ep_params', 'mf_pool_max_f32_ep.c', base='mf_pool_max_f32', variant='ep', access=WINDOW),
    KernelSpec('mf_pool_max_f32_ep_res', 'mf_pool_f32_ep_params', 'mf_pool_max_f32_ep.c', base='mf_pool_max_f32', variant='ep_res', access=WINDOW),
    KernelSpec('mf_pool_max_s8', 'mf_pool_s8_params', 'mf_pool_max_s8.c', access=WINDOW),
    KernelSpec('mf_pool_max_s8_lut', 'mf_pool_s8_ep_params', 'mf_pool_max_s8_ep.c', base='mf_pool_max_s8', variant='lut', access=WINDOW),
    KernelSpec('mf_quantize_f32_s8', 'mf_affine_params', 'mf_quantize_f32.c', access=ELEMENT),
    KernelSpec('mf_relu6_f32', 'mf_unary_f32_params', 'mf_unary_f32.c', access=ELEMENT),
    KernelSpec('mf_relu_f32', 'mf_unary_f32_params', 'mf_unary_f32.c', access=ELEMENT),
    KernelSpec('mf_softmax_f32', 'mf_softmax_f32_params', 'mf_softmax_f32.c'),
    KernelSpec('mf_softmax_s8', 'mf_softmax_s8_params', 'mf_softmax_s8.c'),
    KernelSpec('mf_space_to_batch_f32', 'mf_space_batch_params', 'mf_space_batch.c'),
    KernelSpec('mf_space_to_batch_s8', 'mf_space_batch_params', 'mf_space_batch.c'),
    KernelSpec('mf_sub_f32', 'mf_binary_f32_params', 'mf_binary_f32.c', access=BINARY),
    KernelSpec('mf_sub_f32_k', 'mf_binary_f32_params', 'mf_binary_f32.c', base='mf_sub_f32', variant='k', access=BINARY),
    KernelSpec('mf_sub_s8', 'mf_addsub_params', 'mf_binary_s8.c', access=BINARY),
    KernelSpec('mf_sub_s8_k', 'mf_addsub_params', 'mf_binary_s8.c', base='mf_sub_s8', variant='k', access=BINARY),
    KernelSpec('mf_tanh_f32', 'mf_unary_f32_params', 'mf_unary_f32.c', access=ELEMENT),
]


# Fields a lowering may leave out, with the value they then take (written out explicitly):
# a dense output's stride, a binary op's absent constant, the epilogue fields a variant does
# not read, the int8-only fields of a float MEAN.
DEFAULTS: dict[str, dict[str, object]] = {
    "mf_epilogue_s8": {f: "NULL" if f in ("pre", "post") else 0 for f in PARAMS["mf_epilogue_s8"]},
    "mf_epilogue_f32": {"steps": 0, "kind": "{0}", "alpha": "{0}", "act_min": 0.0, "act_max": 0.0},
    "mf_gap_s8": {"mean": 0, "in_zero_point": 0, "multiplier": 0, "shift": 0, "out_zero_point": 0},
    "mf_mean_params": {"input_zero_point": 0, "output_zero_point": 0, "multiplier": 0, "shift": 0},
    "mf_addsub_params": {"constant": "NULL", "constant_index": 0},
    "mf_mul_s8_params": {"constant": "NULL", "constant_index": 0},
    "mf_binary_f32_params": {"constant": "NULL", "constant_index": 0},
    **{s: {"out_stride": 0} for s, f in PARAMS.items() if "out_stride" in f},
}

SPECS: dict[str, KernelSpec] = {s.name: s for s in _SPECS}
# Runtime functions the emitted code calls that are no kernel (no params struct, no op): their files
HELPERS: dict[str, str] = {"mf_ring_keep": "mf_ring_keep.c"}  # a cascade ring's move (emit/cascade.py)


def declare(params: dict[str, tuple], *specs: KernelSpec, defaults: dict | None = None) -> None:
    """Declare an op family's params structs and kernels from its own lowering module (what a
    new op adds, docs/adding-an-op.md): one KernelSpec per C entry point, each name once."""
    for s in specs:
        if s.name in SPECS:
            raise ValueError(f"kernel {s.name} is declared twice")
    PARAMS.update(params)
    DEFAULTS.update(defaults or {})
    _SPECS.extend(specs)
    SPECS.update({s.name: s for s in specs})
CODE_BYTES: dict[str, int] = json.loads(CODE_BYTES_FILE.read_text())  # package data: always there


def spec(name: str) -> KernelSpec:
    return SPECS[name]


def variants(base: str) -> list[KernelSpec]:
    """The declared fused variants of kernel `base`, in declaration order."""
    return [s for s in _SPECS if s.base == base]


def variant_of(base: str, variant: str) -> KernelSpec | None:
    return next((s for s in _SPECS if s.base == base and s.variant == variant), None)


def origin(s: KernelSpec) -> KernelSpec:
    """The kernel a fused variant builds on, through every level (a plain kernel: itself)."""
    while s.base is not None:
        s = SPECS[s.base]
    return s


def fields(struct: str, prefix: str = "") -> tuple[str, ...]:
    """The params struct's fields, nested structs flattened as `k.batches` (what Call.params uses)."""
    found: list[str] = []
    for f in PARAMS[struct]:
        if isinstance(f, tuple):
            found += fields(f[1], f"{prefix}{f[0]}.")
        else:
            found.append(prefix + f)
    return tuple(found)


def defaults(struct: str, prefix: str = "") -> dict[str, object]:
    found = {prefix + k: v for k, v in DEFAULTS.get(struct, {}).items()}
    for f in PARAMS[struct]:
        if isinstance(f, tuple):
            found.update(defaults(f[1], f"{prefix}{f[0]}."))
    return found


def make(name: str, params: dict[str, object], inputs: list, outputs: list, sources: list[Op],
         scratch: int = 0, notes: list[str] | None = None, state: int = 0) -> Call:
    """The Call of kernel `name`; the declared defaults fill the fields left out, and the
    params must then be exactly the struct's fields (a missing one would be zero-filled by C)."""
    s = SPECS[name]
    want = s.fields
    full = {**params, **{k: v for k, v in defaults(s.params).items() if k not in params}}
    if set(full) != set(want):
        missing, extra = sorted(set(want) - set(full)), sorted(set(full) - set(want))
        raise MicrofuseError(f"internal: {name} params do not match {s.params}: missing {missing}, extra {extra}")
    return Call(s, full, list(inputs), list(outputs), list(sources), scratch, notes or [], state=state)
