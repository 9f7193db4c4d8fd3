"""The package version, in one place (importable without the package's API)."""

__version__ = "0.1.0"
