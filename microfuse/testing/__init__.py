"""Helpers for microfuse's own test suites (test models, not a runtime dependency)."""
