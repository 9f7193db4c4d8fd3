"""microfuse: compile a .tflite model into a static C inference library.

Python API (docs/api.md): microfuse.compile(model, **options) and microfuse.build(model, out, **options);
every error a user can cause is a microfuse.MicrofuseError."""

from .version import __version__

import types as _types

from . import api as _api
from . import build as _build_module
from .api import Result, compile  # noqa: A004 (the documented name)
from .errors import (ArenaLimitError, BoardError, MicrofuseError, ModelError, OptionError, PlanError, TargetError,
                     UnsupportedError)


class _CallableModule(_types.ModuleType):
    """microfuse.build is both the pipeline module (microfuse.build.Options, `from microfuse import build`
    in older code) and the API function: importing the submodule rebinds the name, so the module calls it."""

    def __call__(self, model, out, **options) -> Result:
        """microfuse.build(model, out, **options): see microfuse.api.build."""
        return _api.build(model, out, **options)


_build_module.__class__ = _CallableModule
build = _build_module  # what `import microfuse.build` binds anyway

__all__ = ["compile", "build", "Result", "MicrofuseError", "ModelError", "UnsupportedError", "OptionError",
           "PlanError", "ArenaLimitError", "BoardError", "TargetError", "__version__"]
