"""What one SMAUG phenomenon declares (TextAttack's recipe: a transformation and the constraints that validate
it), with the language support and the card flags of a build of it.

Each hook receives the :class:`~mtgauntlet.builders.smaug.SmaugBuilder` being configured (``builder``): its
loaded backends (``annotator``, ``infiller``, ``nli``, ``polyjuice``, ``translator``; ``None`` when not given),
``specs`` (role -> spec string), ``params`` (the build's numeric options), ``tgt_lang`` and ``entity_count``."""

from __future__ import annotations

from typing import Any, ClassVar

from mtgauntlet.builders.base import Constraint, Transformation
from mtgauntlet.phenomena import registration


class Phenomenon:
    """One phenomenon. A subclass sets ``name`` (as registered in :mod:`mtgauntlet.phenomena`) and the three docs
    texts (the table of docs/methods/smaug.md: ``paper``, ``model_free``, ``validation``), and implements
    :meth:`transformation`, :meth:`constraints` and :meth:`support`; :meth:`flags` is optional."""

    name: ClassVar[str] = ""
    paper: ClassVar[str] = "—"  # how the paper makes it (with models), for the docs table
    model_free: ClassVar[str] = "—"  # how the embedded default makes it without a model download
    validation: ClassVar[str] = "—"  # its constraints in words
    #: a Spanish source and its English reference that the phenomenon applies to: the test example of the
    #: registry-wide tests (tests/builders/smaug/test_phenomena.py builds every phenomenon on it)
    example: ClassVar[tuple[str, str]] = ("", "")

    @property
    def error(self) -> str:
        """The critical error in words, as registered ("a named entity")."""
        return registration(self.name).error

    def transformation(self, builder: Any) -> Transformation:
        """The object whose ``apply(reference, rng, context)`` gives the edit (``None``: not applicable)."""
        raise NotImplementedError

    def constraints(self, builder: Any) -> list[Constraint]:
        """The validation phase, run in order on every edit (the first that fails names the rejection)."""
        raise NotImplementedError

    def support(self, builder: Any, lang: str) -> tuple[bool, str]:
        """(can it be built for target language ``lang`` with the builder's backends, how or why not)."""
        raise NotImplementedError

    def flags(self, builder: Any) -> dict[str, str]:
        """Departures from the paper a card of a build of this phenomenon must state: {flag: sentence}."""
        return {}

    def without_annotator(self, builder: Any) -> str:
        """Why a phenomenon that needs the annotator cannot be built (the annotator's load error)."""
        return getattr(builder, "annotator_error", "no annotator")
