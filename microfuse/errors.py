"""The error hierarchy: every failure a user can cause is a MicrofuseError."""


class MicrofuseError(Exception):
    """Base of all errors the CLI reports as one line with exit status 2."""


class ModelError(MicrofuseError):
    """The file is not a valid TFLite model (missing, truncated, corrupt)."""


class OptionError(MicrofuseError):
    """An option given to the Python API (microfuse.compile / build) that microfuse does not know."""


class UnsupportedError(MicrofuseError):
    """The model is valid but uses an op, type or shape microfuse cannot compile."""


class PlanError(MicrofuseError):
    """The memory plan is impossible (arena limit) or failed its proof."""


class ArenaLimitError(PlanError):
    """The planned arena is larger than the user's limit or the board's SRAM."""


class BoardError(MicrofuseError):
    """A board definition is missing or malformed."""


class TargetError(MicrofuseError):
    """Building or running on a target failed (toolchain, QEMU, serial link)."""
