"""Virtual scalar tags: scalar series a Board computes in the kernel and shows like logged ones.

A *provider* (``VirtualProvider``) says which virtual tags a run has, which logged tags each is
computed from, and computes its ``ScalarSeries``. The Board's source (``shared.SharedSource``)
asks its providers in ``tags``, ``scalars``, ``metadata`` and ``point_count``, so the rest of
the Board (cards, smoothing, the step table, run groups, best points, x axes, downloads,
``board.card`` and ``to_html``) sees a plain scalar tag. Rules:

- A virtual tag never shadows a logged tag: a run that logs a tag of the same name keeps its own
  (the virtual one is not listed for that run). Among providers, the first registered wins.
- Providers read the *logged* tags only (``LoggedView``): a virtual tag is not an input of
  another, so no chain or circle of virtual tags can form.
- A series is computed on first use and cached until its inputs change: the cache key holds the
  input series' point counts, and a reload that reports new points for an input (or purges the
  run) drops the run's entries. Cost per reload: the virtual tags of the runs that changed.
- A reload reports virtual tags too (``report``): a virtual tag that a run holds now and did not
  at the previous report is a new tag; one whose inputs got points has its points changed.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from tbnb.format.proto import summary_pb2

from ..reader.runs.series import ScalarSeries

if TYPE_CHECKING:
    from ..reader.logdir.logdir import ReloadResult
    from .sources import MultiLogdir


class VirtualProvider(Protocol):
    """What a source of virtual scalar tags implements."""

    def virtual_tags(self, logged: LoggedView, run: str) -> dict[str, tuple[str, ...]]:
        """``{virtual tag: the logged scalar tags it is computed from}`` for ``run``."""
        ...

    def compute(self, logged: LoggedView, run: str, tag: str) -> ScalarSeries:
        """The series of one of the run's virtual tags (step order, one point per step)."""
        ...

    def describe(self, tag: str) -> str:
        """A line saying what the tag is (its metadata's summary description)."""
        ...


class LoggedView:
    """The reading methods of a MultiLogdir without its virtual tags: what providers read."""

    def __init__(self, source: MultiLogdir, cls: type[MultiLogdir]) -> None:
        self._source = source
        self._cls = cls  # the class whose methods read logged data only (MultiLogdir)

    def runs(self) -> list[str]:
        return self._cls.runs(self._source)

    def tags(self, run: str) -> dict[str, str]:
        return self._cls.tags(self._source, run)

    def scalars(self, run: str, tag: str) -> ScalarSeries:
        return self._cls.scalars(self._source, run, tag)

    def tensors(self, run: str, tag: str) -> object:
        return self._cls.tensors(self._source, run, tag)

    def metadata(self, run: str, tag: str) -> summary_pb2.SummaryMetadata | None:
        return self._cls.metadata(self._source, run, tag)

    def point_count(self, run: str, tag: str) -> int:
        return self._cls.point_count(self._source, run, tag)


def scalar_metadata(tag: str, description: str) -> summary_pb2.SummaryMetadata:
    """A scalars SummaryMetadata for a virtual tag (what a writer's first event would carry)."""
    md = summary_pb2.SummaryMetadata(display_name=tag, summary_description=description)
    md.plugin_data.plugin_name = "scalars"
    return md


class VirtualScalars:
    """A source's providers, their tags per run, and the cache of computed series."""

    def __init__(self, logged: LoggedView) -> None:
        self.logged = logged
        self._providers: dict[str, VirtualProvider] = {}
        self._cache: dict[tuple[str, str], tuple[tuple[object, ...], ScalarSeries]] = {}
        self._reported: dict[str, set[str]] = {}  # run -> virtual tags a report last listed
        self._lock = threading.RLock()

    def __bool__(self) -> bool:
        return bool(self._providers)

    @property
    def providers(self) -> dict[str, VirtualProvider]:
        """Name -> provider, in registration order (a copy)."""
        return dict(self._providers)

    def set_provider(self, name: str, provider: VirtualProvider | None) -> dict[str, set[str]]:
        """Add, replace (same name, same place) or remove (None) a provider; returns
        ``{run: virtual tags}`` of the tags that appeared, went or may have changed."""
        with self._lock:
            before = self._all_tags()
            if provider is None:
                self._providers.pop(name, None)
            else:
                self._providers[name] = provider
            self._cache.clear()
            after = self._all_tags()
            self._reported = {run: set(tags) for run, tags in after.items()}
        touched: dict[str, set[str]] = {}
        for run in set(before) | set(after):
            tags = set(before.get(run, {})) | set(after.get(run, {}))
            if tags:
                touched[run] = tags
        return touched

    def _all_tags(self) -> dict[str, dict[str, tuple[str, VirtualProvider, tuple[str, ...]]]]:
        found = {}
        for run in self.logged.runs():
            try:
                found[run] = self.tags_of(run)
            except KeyError:
                continue
        return found

    def tags_of(self, run: str) -> dict[str, tuple[str, VirtualProvider, tuple[str, ...]]]:
        """``{virtual tag: (provider name, provider, input tags)}`` of ``run``: no logged tag
        shadowed, the first provider winning a name."""
        if not self._providers:
            return {}
        logged = self.logged.tags(run)
        found: dict[str, tuple[str, VirtualProvider, tuple[str, ...]]] = {}
        for name, provider in list(self._providers.items()):
            for tag, inputs in provider.virtual_tags(self.logged, run).items():
                if tag not in logged and tag not in found:
                    found[tag] = (name, provider, tuple(inputs))
        return found

    def tags(self, run: str) -> dict[str, str]:
        """``{tag: "scalars"}`` of the run's virtual tags."""
        return {tag: "scalars" for tag in self.tags_of(run)}

    def owner(self, run: str, tag: str) -> tuple[str, VirtualProvider, tuple[str, ...]] | None:
        """The provider of ``run``'s virtual ``tag``, or None when it is not a virtual tag there."""
        if not self._providers:
            return None
        return self.tags_of(run).get(tag)

    def scalars(self, run: str, tag: str) -> ScalarSeries:
        """The virtual tag's series (cached until its inputs change); KeyError if there is none."""
        found = self.owner(run, tag)
        if found is None:
            raise KeyError(f"run {run!r} has no tag {tag!r}")
        name, provider, inputs = found
        key = (name, *inputs, *(self.logged.point_count(run, t) for t in inputs))
        with self._lock:
            cached = self._cache.get((run, tag))
            if cached is not None and cached[0] == key:
                return cached[1]
        series = provider.compute(self.logged, run, tag)
        with self._lock:
            self._cache[(run, tag)] = (key, series)
        return series

    def metadata(self, run: str, tag: str) -> summary_pb2.SummaryMetadata | None:
        """A scalars SummaryMetadata describing the virtual tag, or None if it is not one."""
        found = self.owner(run, tag)
        return None if found is None else scalar_metadata(tag, found[1].describe(tag))

    def point_count(self, run: str, tag: str) -> int:
        return len(self.scalars(run, tag))

    def report(self, result: ReloadResult) -> None:
        """Add to a reload's result the virtual tags it changed (the module doc's rules)."""
        if not self._providers:
            return
        changed_inputs: dict[str, set[str]] = {}
        for run, tag in result.points:
            changed_inputs.setdefault(run, set()).add(tag)
        for run, tags in result.new_tags.items():
            changed_inputs.setdefault(run, set()).update(tags)
        runs = set(changed_inputs) | set(result.new_runs) | set(result.purged_runs)
        with self._lock:
            for run in result.removed_runs:
                self._reported.pop(run, None)
                self._drop(run)
            for run in runs - set(result.removed_runs):
                self._report_run(result, run, changed_inputs.get(run, set()), run in result.purged_runs)

    def _report_run(self, result: ReloadResult, run: str, inputs: set[str], purged: bool) -> None:
        try:
            now = self.tags_of(run)
        except KeyError:
            return
        if purged:
            self._drop(run)
        before = self._reported.get(run, set())
        new = [t for t in now if t not in before]
        if new:
            known = result.new_tags.setdefault(run, [])
            known += [t for t in new if t not in known]
        for tag, (_, _, needs) in now.items():
            if tag in new or purged or inputs.intersection(needs):
                old = self._cache.get((run, tag))
                had = len(old[1]) if old is not None else 0
                result.points[(run, tag)] = max(self.point_count(run, tag) - had, 0)
        self._reported[run] = set(now)

    def _drop(self, run: str) -> None:
        for key in [k for k in self._cache if k[0] == run]:
            del self._cache[key]

