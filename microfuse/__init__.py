"""microfuse: compile a .tflite model into a static C inference library.

Python API (docs/api.md): microfuse.compile(model, **options) and microfuse.build(model, out, **options);
every error a user can cause is a microfuse.MicrofuseError. The API loads on first use, so
`python -m microfuse` starts (and handles signals) before numpy and the compiler are imported."""

from .errors import (ArenaLimitError, BoardError, MicrofuseError, ModelError, OptionError, PlanError, TargetError,
                     UnsupportedError)
from .version import __version__

_API = ("compile", "build", "Result")


def __getattr__(name: str):
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'microfuse' has no attribute {name!r}")


__all__ = ["compile", "build", "Result", "MicrofuseError", "ModelError", "UnsupportedError", "OptionError",
           "PlanError", "ArenaLimitError", "BoardError", "TargetError", "__version__"]
