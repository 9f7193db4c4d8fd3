"""TFLite flatbuffers in and out: `read`/`load` a .tflite into an ir.Graph (writer.py writes one)."""

from .reader import load, read, read_bytes

__all__ = ["load", "read", "read_bytes"]
