"""mtgauntlet: build, validate and release machine-translation challenge sets."""

__version__ = "0.1.0"

from mtgauntlet.errors import GauntletError, InputError  # noqa: E402

__all__ = ["__version__", "GauntletError", "InputError"]
