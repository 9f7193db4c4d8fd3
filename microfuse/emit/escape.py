"""The one way any text from a model or the command line enters generated C, Makefile or CMake."""

from __future__ import annotations

import re

import jinja2

_UNPRINTABLE = re.compile(r"[^\x20-\x7e]")  # newlines, controls, non-ASCII: one '?' each
_QUESTIONS = re.compile(r"\?{2,}")  # `??x` is a C trigraph (`??/` a backslash) with -std=c99
_NOT_IDENT = re.compile(r"[^A-Za-z0-9_]")


def comment(text: object) -> str:
    """`text` made safe inside a C /* */ comment and a Makefile/CMake `#` comment: one line, no
    comment delimiters, no trigraphs, no backslash (so no backslash-newline continuation)."""
    s = _UNPRINTABLE.sub("?", str(text)).replace("\\", "/")
    s = _QUESTIONS.sub("?", s)
    while "*/" in s or "/*" in s:
        s = s.replace("*/", "* /").replace("/*", "/ *")
    return s


def ident(text: object) -> str:
    """A C identifier (fragment) from a name: every character outside [A-Za-z0-9_] becomes '_'."""
    s = _NOT_IDENT.sub("_", str(text))
    return s if s and not s[0].isdigit() else f"_{s}"


def environment(loader: jinja2.BaseLoader, **options) -> jinja2.Environment:
    """A jinja2 environment for C-like text with the `comment` and `ident` filters; every template
    routes names through them."""
    settings = dict(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                    undefined=jinja2.StrictUndefined)
    env = jinja2.Environment(loader=loader, **{**settings, **options})
    env.filters.update(comment=comment, ident=ident)
    return env
