"""Runs switched off by a regular expression: the ``hidden_patterns`` setting.

A run is shown when it fully matches one of ``runs``, is not named in ``hidden_runs`` and fully
matches none of ``hidden_patterns`` (``dashboards.common.shown_runs``; the page's runs.js).
Why patterns beside names: in a sweep of thousands of runs, unticking the run selector's "all"
for a filter would otherwise write every listed name into ``hidden_runs``: a trait message (and
a saved notebook) that grows with the number of runs hidden. The selector writes the filter
itself instead, and ticking one run that a pattern hides narrows that pattern to
``(?!name$)(?:pattern)``, so that each click adds one name at most. A pattern also hides the
matching runs that appear later, as the filter's "all" box would list them unticked.

The kernel matches with RE2, which has no lookahead: it reads the narrowed form as the pattern
``pattern`` with the exception ``name`` (reader/user_regex.py, ``compile_excepting``), in time
linear in the run name, whatever the page writes.
"""

from __future__ import annotations

import traitlets

from .traits import RegexList


class RunVisibility(traitlets.HasTraits):
    """The Board's ``hidden_patterns`` (its other run settings are the Board's own traits)."""

    #: Regular expressions (RE2's syntax, full match; the narrowed form above read as a pattern
    #: with exceptions): a run matching one is not drawn.
    hidden_patterns = RegexList(excepting=True).tag(sync=True)
