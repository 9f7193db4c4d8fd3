"""The parts of TFLite's schema.fbs microfuse reads and writes, as data: one table for both."""

from __future__ import annotations

from dataclasses import dataclass

# BuiltinOperator enum, in value order (0 = ADD ... 161 = RIGHT_SHIFT).
_BUILTIN_NAMES = """
ADD AVERAGE_POOL_2D CONCATENATION CONV_2D DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE
EMBEDDING_LOOKUP FLOOR FULLY_CONNECTED HASHTABLE_LOOKUP L2_NORMALIZATION L2_POOL_2D
LOCAL_RESPONSE_NORMALIZATION LOGISTIC LSH_PROJECTION LSTM MAX_POOL_2D MUL RELU RELU_N1_TO_1
RELU6 RESHAPE RESIZE_BILINEAR RNN SOFTMAX SPACE_TO_DEPTH SVDF TANH CONCAT_EMBEDDINGS SKIP_GRAM
CALL CUSTOM EMBEDDING_LOOKUP_SPARSE PAD UNIDIRECTIONAL_SEQUENCE_RNN GATHER BATCH_TO_SPACE_ND
SPACE_TO_BATCH_ND TRANSPOSE MEAN SUB DIV SQUEEZE UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE
BIDIRECTIONAL_SEQUENCE_RNN EXP TOPK_V2 SPLIT LOG_SOFTMAX DELEGATE BIDIRECTIONAL_SEQUENCE_LSTM
CAST PRELU MAXIMUM ARG_MAX MINIMUM LESS NEG PADV2 GREATER GREATER_EQUAL LESS_EQUAL SELECT
SLICE SIN TRANSPOSE_CONV SPARSE_TO_DENSE TILE EXPAND_DIMS EQUAL NOT_EQUAL LOG SUM SQRT RSQRT
SHAPE POW ARG_MIN FAKE_QUANT REDUCE_PROD REDUCE_MAX PACK LOGICAL_OR ONE_HOT LOGICAL_AND
LOGICAL_NOT UNPACK REDUCE_MIN FLOOR_DIV REDUCE_ANY SQUARE ZEROS_LIKE FILL FLOOR_MOD RANGE
RESIZE_NEAREST_NEIGHBOR LEAKY_RELU SQUARED_DIFFERENCE MIRROR_PAD ABS SPLIT_V UNIQUE CEIL
REVERSE_V2 ADD_N GATHER_ND COS WHERE RANK ELU REVERSE_SEQUENCE MATRIX_DIAG QUANTIZE
MATRIX_SET_DIAG ROUND HARD_SWISH IF WHILE NON_MAX_SUPPRESSION_V4 NON_MAX_SUPPRESSION_V5
SCATTER_ND SELECT_V2 DENSIFY SEGMENT_SUM BATCH_MATMUL PLACEHOLDER_FOR_GREATER_OP_CODES CUMSUM
CALL_ONCE BROADCAST_TO RFFT2D CONV_3D IMAG REAL COMPLEX_ABS HASHTABLE HASHTABLE_FIND
HASHTABLE_IMPORT HASHTABLE_SIZE REDUCE_ALL CONV_3D_TRANSPOSE VAR_HANDLE READ_VARIABLE
ASSIGN_VARIABLE BROADCAST_ARGS RANDOM_STANDARD_NORMAL BUCKETIZE RANDOM_UNIFORM MULTINOMIAL
GELU DYNAMIC_UPDATE_SLICE RELU_0_TO_1 UNSORTED_SEGMENT_PROD UNSORTED_SEGMENT_MAX
UNSORTED_SEGMENT_SUM ATAN2 UNSORTED_SEGMENT_MIN SIGN BITCAST BITWISE_XOR RIGHT_SHIFT
""".split()
BUILTIN_CODE = {name: code for code, name in enumerate(_BUILTIN_NAMES)}
PLACEHOLDER_FOR_GREATER_OP_CODES = BUILTIN_CODE["PLACEHOLDER_FOR_GREATER_OP_CODES"]


def builtin_name(code: int) -> str:
    return _BUILTIN_NAMES[code] if 0 <= code < len(_BUILTIN_NAMES) else f"BUILTIN_{code}"


# TensorType enum value -> name; names match microfuse.ir.DType members where supported.
TENSOR_TYPES = {
    0: "FLOAT32", 1: "FLOAT16", 2: "INT32", 3: "UINT8", 4: "INT64", 5: "STRING", 6: "BOOL",
    7: "INT16", 8: "COMPLEX64", 9: "INT8", 10: "FLOAT64", 11: "COMPLEX128", 12: "UINT64",
    13: "RESOURCE", 14: "VARIANT", 15: "UINT32", 16: "UINT16", 17: "INT4", 18: "BFLOAT16",
}
TENSOR_TYPE_CODE = {name: code for code, name in TENSOR_TYPES.items()}

PADDING = ("SAME", "VALID")
ACTIVATIONS = ("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT")

# BuiltinOptions union members, in order; the union type code is position + 1.
_OPTIONS_UNION = """
Conv2DOptions DepthwiseConv2DOptions ConcatEmbeddingsOptions LSHProjectionOptions Pool2DOptions
SVDFOptions RNNOptions FullyConnectedOptions SoftmaxOptions ConcatenationOptions AddOptions
L2NormOptions LocalResponseNormalizationOptions LSTMOptions ResizeBilinearOptions CallOptions
ReshapeOptions SkipGramOptions SpaceToDepthOptions EmbeddingLookupSparseOptions MulOptions
PadOptions GatherOptions BatchToSpaceNDOptions SpaceToBatchNDOptions TransposeOptions
ReducerOptions SubOptions DivOptions SqueezeOptions SequenceRNNOptions StridedSliceOptions
ExpOptions TopKV2Options SplitOptions LogSoftmaxOptions CastOptions DequantizeOptions
MaximumMinimumOptions ArgMaxOptions LessOptions NegOptions PadV2Options GreaterOptions
GreaterEqualOptions LessEqualOptions SelectOptions SliceOptions TransposeConvOptions
SparseToDenseOptions TileOptions ExpandDimsOptions EqualOptions NotEqualOptions ShapeOptions
PowOptions ArgMinOptions FakeQuantOptions PackOptions LogicalOrOptions OneHotOptions
LogicalAndOptions LogicalNotOptions UnpackOptions FloorDivOptions SquareOptions
ZerosLikeOptions FillOptions BidirectionalSequenceLSTMOptions BidirectionalSequenceRNNOptions
UnidirectionalSequenceLSTMOptions FloorModOptions RangeOptions ResizeNearestNeighborOptions
LeakyReluOptions SquaredDifferenceOptions MirrorPadOptions AbsOptions SplitVOptions
UniqueOptions ReverseV2Options AddNOptions GatherNdOptions CosOptions WhereOptions RankOptions
ReverseSequenceOptions MatrixDiagOptions QuantizeOptions MatrixSetDiagOptions HardSwishOptions
IfOptions WhileOptions DepthToSpaceOptions NonMaxSuppressionV4Options NonMaxSuppressionV5Options
ScatterNdOptions SelectV2Options DensifyOptions SegmentSumOptions BatchMatMulOptions CumsumOptions
CallOnceOptions BroadcastToOptions Rfft2dOptions Conv3DOptions HashtableOptions HashtableFindOptions
HashtableImportOptions HashtableSizeOptions VarHandleOptions ReadVariableOptions AssignVariableOptions
RandomOptions BucketizeOptions GeluOptions DynamicUpdateSliceOptions UnsortedSegmentProdOptions
UnsortedSegmentMaxOptions UnsortedSegmentMinOptions UnsortedSegmentSumOptions ATan2Options SignOptions
BitcastOptions BitwiseXorOptions RightShiftOptions
""".split()
OPTIONS_TYPE_CODE = {name: i + 1 for i, name in enumerate(_OPTIONS_UNION)}
OPTIONS_TYPE_NAME = {code: name for name, code in OPTIONS_TYPE_CODE.items()}


@dataclass(frozen=True)
class Field:
    """One scalar or vector field of an options table; its slot is its position."""

    name: str
    kind: str  # 'i8' (byte enum), 'bool', 'i32', 'f32', 'u8' (TensorType), 'i32[]'
    default: object = 0


def _f(spec: str) -> tuple[Field, ...]:
    """Parse 'name:kind[=default] ...' into Fields in slot order."""
    fields = []
    for item in spec.split():
        name, rest = item.split(":")
        kind, _, default = rest.partition("=")
        value: object = [] if kind == "i32[]" else 0
        if default:
            value = float(default) if kind == "f32" else (default == "true" if kind == "bool" else int(default))
        fields.append(Field(name, kind, value))
    return tuple(fields)


# Options tables microfuse understands: name -> fields in schema slot order.
OPTIONS_FIELDS: dict[str, tuple[Field, ...]] = {
    "Conv2DOptions": _f("padding:i8 stride_w:i32 stride_h:i32 fused_activation_function:i8 "
                        "dilation_w_factor:i32=1 dilation_h_factor:i32=1 quantized_bias_type:u8"),
    "DepthwiseConv2DOptions": _f("padding:i8 stride_w:i32 stride_h:i32 depth_multiplier:i32 "
                                 "fused_activation_function:i8 dilation_w_factor:i32=1 dilation_h_factor:i32=1"),
    "Pool2DOptions": _f("padding:i8 stride_w:i32 stride_h:i32 filter_width:i32 filter_height:i32 "
                        "fused_activation_function:i8"),
    "FullyConnectedOptions": _f("fused_activation_function:i8 weights_format:i8 keep_num_dims:bool "
                                "asymmetric_quantize_inputs:bool quantized_bias_type:u8"),
    "SoftmaxOptions": _f("beta:f32"),
    "ConcatenationOptions": _f("axis:i32 fused_activation_function:i8"),
    "AddOptions": _f("fused_activation_function:i8 pot_scale_int16:bool=true"),
    "SubOptions": _f("fused_activation_function:i8 pot_scale_int16:bool=true"),
    "MulOptions": _f("fused_activation_function:i8"),
    "DivOptions": _f("fused_activation_function:i8"),
    "ReshapeOptions": _f("new_shape:i32[]"),
    "PadOptions": (),
    "PadV2Options": (),
    "ReducerOptions": _f("keep_dims:bool"),
    "SqueezeOptions": _f("squeeze_dims:i32[]"),
    "StridedSliceOptions": _f("begin_mask:i32 end_mask:i32 ellipsis_mask:i32 new_axis_mask:i32 "
                              "shrink_axis_mask:i32 offset:bool"),
    "PackOptions": _f("values_count:i32 axis:i32"),
    "ShapeOptions": _f("out_type:u8=2"),
    "ExpandDimsOptions": (),
    "LeakyReluOptions": _f("alpha:f32"),
    "HardSwishOptions": (),
    "QuantizeOptions": (),
    "DequantizeOptions": (),
    "SpaceToBatchNDOptions": (),
    "BatchToSpaceNDOptions": (),
    "ArgMaxOptions": _f("output_type:i8"),
    "ArgMinOptions": _f("output_type:i8"),
    "L2NormOptions": _f("fused_activation_function:i8"),
    "LogSoftmaxOptions": (),
    "ResizeBilinearOptions": _f("new_height:i32 new_width:i32 align_corners:bool half_pixel_centers:bool"),
    "ResizeNearestNeighborOptions": _f("align_corners:bool half_pixel_centers:bool"),
    "BatchMatMulOptions": _f("adj_x:bool adj_y:bool asymmetric_quantize_inputs:bool"),
    "UnidirectionalSequenceLSTMOptions": _f("fused_activation_function:i8 cell_clip:f32 proj_clip:f32 "
                                            "time_major:bool asymmetric_quantize_inputs:bool "
                                            "diagonal_recurrent_tensors:bool"),
    "SVDFOptions": _f("rank:i32 fused_activation_function:i8 asymmetric_quantize_inputs:bool"),
    "CallOnceOptions": _f("init_subgraph_index:i32"),
    "IfOptions": _f("then_subgraph_index:i32 else_subgraph_index:i32"),
    "WhileOptions": _f("cond_subgraph_index:i32 body_subgraph_index:i32"),
    "SplitOptions": _f("num_splits:i32"),
    "SplitVOptions": _f("num_splits:i32"),
    "UnpackOptions": _f("num:i32 axis:i32"),
    # data movement (ops/movement.py)
    "TransposeOptions": (),
    "SliceOptions": (),
    "ReverseV2Options": (),
    "GatherOptions": _f("axis:i32 batch_dims:i32"),
    "GatherNdOptions": (),
    "DepthToSpaceOptions": _f("block_size:i32"),
    "SpaceToDepthOptions": _f("block_size:i32"),
    "MirrorPadOptions": _f("mode:i8"),
    "BroadcastToOptions": (),
    "FillOptions": (),
    "CumsumOptions": _f("exclusive:bool reverse:bool"),
    "DynamicUpdateSliceOptions": (),
    "TransposeConvOptions": _f("padding:i8 stride_w:i32 stride_h:i32 fused_activation_function:i8 "
                               "quantized_bias_type:u8"),
}
VAR_HANDLE_OPTIONS = {"container": 0, "shared_name": 1}  # strings: the reader decodes them itself

# Deprecated fields that still hold their slots (schema.fbs keeps them; generated code omits them).
DEPRECATED_FIELDS = {("ResizeBilinearOptions", "new_height"), ("ResizeBilinearOptions", "new_width")}

# Which options table each builtin op carries (ops absent here carry none).
OP_OPTIONS = {
    "CONV_2D": "Conv2DOptions",
    "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
    "AVERAGE_POOL_2D": "Pool2DOptions",
    "MAX_POOL_2D": "Pool2DOptions",
    "FULLY_CONNECTED": "FullyConnectedOptions",
    "SOFTMAX": "SoftmaxOptions",
    "CONCATENATION": "ConcatenationOptions",
    "ADD": "AddOptions",
    "SUB": "SubOptions",
    "MUL": "MulOptions",
    "DIV": "DivOptions",
    "RESHAPE": "ReshapeOptions",
    "PAD": "PadOptions",
    "PADV2": "PadV2Options",
    "MEAN": "ReducerOptions",
    "SUM": "ReducerOptions",
    "SQUEEZE": "SqueezeOptions",
    "STRIDED_SLICE": "StridedSliceOptions",
    "PACK": "PackOptions",
    "SHAPE": "ShapeOptions",
    "EXPAND_DIMS": "ExpandDimsOptions",
    "LEAKY_RELU": "LeakyReluOptions",
    "HARD_SWISH": "HardSwishOptions",
    "QUANTIZE": "QuantizeOptions",
    "DEQUANTIZE": "DequantizeOptions",
    "SPACE_TO_BATCH_ND": "SpaceToBatchNDOptions",
    "BATCH_TO_SPACE_ND": "BatchToSpaceNDOptions",
    "REDUCE_MAX": "ReducerOptions",
    "REDUCE_MIN": "ReducerOptions",
    "REDUCE_ALL": "ReducerOptions",
    "ARG_MAX": "ArgMaxOptions",
    "ARG_MIN": "ArgMinOptions",
    "L2_NORMALIZATION": "L2NormOptions",
    "LOG_SOFTMAX": "LogSoftmaxOptions",
    "L2_POOL_2D": "Pool2DOptions",
    "RESIZE_BILINEAR": "ResizeBilinearOptions",
    "RESIZE_NEAREST_NEIGHBOR": "ResizeNearestNeighborOptions",
    "BATCH_MATMUL": "BatchMatMulOptions",
    "UNIDIRECTIONAL_SEQUENCE_LSTM": "UnidirectionalSequenceLSTMOptions",
    "SVDF": "SVDFOptions",
    "CALL_ONCE": "CallOnceOptions",
    "IF": "IfOptions",
    "WHILE": "WhileOptions",
    "SPLIT": "SplitOptions",
    "SPLIT_V": "SplitVOptions",
    "UNPACK": "UnpackOptions",
    "TRANSPOSE": "TransposeOptions",
    "SLICE": "SliceOptions",
    "REVERSE_V2": "ReverseV2Options",
    "GATHER": "GatherOptions",
    "GATHER_ND": "GatherNdOptions",
    "DEPTH_TO_SPACE": "DepthToSpaceOptions",
    "SPACE_TO_DEPTH": "SpaceToDepthOptions",
    "MIRROR_PAD": "MirrorPadOptions",
    "BROADCAST_TO": "BroadcastToOptions",
    "FILL": "FillOptions",
    "CUMSUM": "CumsumOptions",
    "DYNAMIC_UPDATE_SLICE": "DynamicUpdateSliceOptions",
    "TRANSPOSE_CONV": "TransposeConvOptions",
}

# Field slots of the model tables (vtable slot = position in the schema's table).
MODEL = {"version": 0, "operator_codes": 1, "subgraphs": 2, "description": 3, "buffers": 4,
         "metadata_buffer": 5, "metadata": 6, "signature_defs": 7}
OPERATOR_CODE = {"deprecated_builtin_code": 0, "custom_code": 1, "version": 2, "builtin_code": 3}
SUBGRAPH = {"tensors": 0, "inputs": 1, "outputs": 2, "operators": 3, "name": 4}
TENSOR = {"shape": 0, "type": 1, "buffer": 2, "name": 3, "quantization": 4, "is_variable": 5,
          "sparsity": 6, "shape_signature": 7, "has_rank": 8, "variant_tensors": 9, "external_buffer": 10}
QUANTIZATION = {"min": 0, "max": 1, "scale": 2, "zero_point": 3, "details_type": 4, "details": 5,
                "quantized_dimension": 6}
OPERATOR = {"opcode_index": 0, "inputs": 1, "outputs": 2, "builtin_options_type": 3,
            "builtin_options": 4, "custom_options": 5, "custom_options_format": 6,
            "mutating_variable_inputs": 7, "intermediates": 8}
BUFFER = {"data": 0, "offset": 1, "size": 2}
METADATA = {"name": 0, "buffer": 1}
FILE_IDENTIFIER = b"TFL3"
SCHEMA_VERSION = 3
