"""Errors a user sees. Every input error names the file, the line and the field."""

from __future__ import annotations


class GauntletError(Exception):
    """Base class of every error mtgauntlet raises on purpose (the CLI prints these without a traceback).

    ``exit_code`` is what the CLI exits with: 2 for usage and input errors, 3 for a spent budget. The message
    never shows a credential: a URL's user info or a ``#key=``-like spec option is masked as ``***``."""

    exit_code = 2

    def __init__(self, *args):
        from mtgauntlet.core.spec_public import redact_secrets  # imports nothing of the package: no cycle

        super().__init__(*(redact_secrets(a) if isinstance(a, str) else a for a in args))


class UsageError(GauntletError):
    """An option value that is not allowed (out of range, not one of the choices, a bad combination)."""


class GauntletWarning(UserWarning):
    """Something a user should know that does not stop the work (a licence to check, dropped duplicates): the
    CLI prints it as ``warning: ...``; from Python it is an ordinary `warnings` warning."""


class InputError(GauntletError):
    """Bad input data: carries file, line (1-based, header = line 1 for delimited files) and field."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None, field: str | None = None):
        self.file, self.line, self.field, self.reason = file, line, field, message
        where = []
        if file is not None:
            where.append(str(file))
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(f"{': '.join([', '.join(where), message]) if where else message}")


class BackendUnavailable(GauntletError):
    """A model backend cannot run here (package or model missing); the message says what would provide it."""


class BuildStateError(GauntletError):
    """An output directory holds a build that does not match the requested one."""
