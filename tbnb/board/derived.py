"""``board.derived``: scalar cards computed from logged tags, ``{"gap": "{loss/val} - {loss/train}"}``.

Each entry names a virtual scalar tag (virtual_scalars.py) whose series, in every run holding all
the tags its expression names, is the expression's value at the steps where all of them have a
point (the diagnostics' one alignment rule: reader/plugins/diagnostics/align.py), i.e. exactly
``Logdir.derive``'s series. The text may come from the page (a Voila viewer), so each expression
is parsed by the diagnostics' parser (never ``eval``) and the whole setting is bounded: at most
``MAX_ENTRIES`` entries, names of at most ``MAX_NAME`` characters; a bad entry is a TraitError
saying which entry and where its expression is wrong, and the previous value stays.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import traitlets
from traitlets import TraitError

from ..reader.logdir.logdir import ReloadResult
from ..reader.plugins.diagnostics.align import scalar_tags
from ..reader.plugins.diagnostics.derive import derived_series
from ..reader.plugins.diagnostics.expression import Expression, ExpressionError, parse
from ..reader.runs.series import ScalarSeries
from .virtual_scalars import LoggedView

if TYPE_CHECKING:
    from .shared import SharedSource

#: Most entries ``board.derived`` takes, and the longest name of one.
MAX_ENTRIES = 64
MAX_NAME = 200


def check_derived(value: Any) -> dict[str, Expression]:
    """``{name: expression text}`` parsed, or a TraitError naming the entry that is wrong."""
    if not isinstance(value, Mapping):
        raise TraitError(f"derived must be a dict of {{name: expression}}, got {type(value).__name__}")
    if len(value) > MAX_ENTRIES:
        raise TraitError(f"derived: {len(value)} entries, at most {MAX_ENTRIES}")
    parsed: dict[str, Expression] = {}
    for name, text in value.items():
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            shown = repr(name)[:MAX_NAME]
            raise TraitError(f"derived: a name must be a non-empty str of at most {MAX_NAME} characters, "
                             f"got {shown}")
        if not name.isprintable():
            raise TraitError(f"derived: the name {name!r} holds control characters")
        if not isinstance(text, str):
            raise TraitError(f"derived[{name!r}] must be an expression str, got {type(text).__name__}")
        try:
            expr = parse(text)
        except ExpressionError as err:
            raise TraitError(f"derived[{name!r}]: {err}") from None
        if not expr.tags:
            raise TraitError(f"derived[{name!r}]: the expression {text!r} names no tag: "
                             "tags go in braces, e.g. {loss}")
        parsed[name] = expr
    return parsed


class DerivedScalars:
    """The virtual-tag provider of ``board.derived``."""

    def __init__(self, expressions: Mapping[str, Expression]) -> None:
        self.expressions = dict(expressions)

    def virtual_tags(self, logged: LoggedView, run: str) -> dict[str, tuple[str, ...]]:
        have = set(scalar_tags(logged, run))
        return {name: expr.tags for name, expr in self.expressions.items() if set(expr.tags) <= have}

    def compute(self, logged: LoggedView, run: str, tag: str) -> ScalarSeries:
        return derived_series(logged, self.expressions[tag], [run])[run]

    def describe(self, tag: str) -> str:
        return f"derived: {self.expressions[tag].text}"


class DerivedTraits(traitlets.HasTraits):
    """The Board's ``derived`` setting and ``source``. Mixed into ``tbnb.Board`` only (widget.py),
    whose source and reload news it uses: ``_source``, ``_started``, ``_absorb``."""

    #: ``{card name: expression over logged scalar tags in braces}`` (reader/plugins/diagnostics/
    #: expression.py: the language); each name is a scalar tag in every run holding the inputs.
    derived = traitlets.Dict(value_trait=traitlets.Unicode(), key_trait=traitlets.Unicode()).tag(sync=True)

    @traitlets.validate("derived")
    def _check_derived(self, proposal: dict[str, Any]) -> dict[str, str]:
        check_derived(proposal["value"])
        return dict(proposal["value"])

    @traitlets.observe("derived")
    def _apply_derived(self, change: dict[str, Any]) -> None:
        """``derived`` cards appear, change or go: the page hears it as it hears a reload's news."""
        result = apply_derived(self.source, change["new"])
        if getattr(self, "_started", False):
            self._absorb(result, time.time())  # type: ignore[attr-defined]

    @property
    def source(self) -> SharedSource:
        """What the Board reads, its virtual tags (``derived``) included: what its cards draw."""
        return self._source  # type: ignore[attr-defined,no-any-return]


def provider(value: Mapping[str, str]) -> DerivedScalars | None:
    """The provider of a (validated) ``derived`` value; None when it is empty."""
    return DerivedScalars(check_derived(value)) if value else None


def apply_derived(source: SharedSource, value: Mapping[str, str]) -> ReloadResult:
    """Set the source's ``derived`` provider; what the page must hear, as a reload's result:
    every derived tag that appeared, went or may have changed, in ``new_tags`` (the page asks
    for the index again) and in ``points`` (its cards fetch again)."""
    touched = source.virtual.set_provider("derived", provider(value))
    return ReloadResult(new_tags={run: sorted(tags) for run, tags in touched.items()},
                        points={(run, tag): 0 for run, tags in touched.items() for tag in tags})
