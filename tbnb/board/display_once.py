"""A Board displayed once per cell: ``tbnb.show(...)`` displays the board and returns it; as a
cell's last line, IPython would then display the returned board a second time (two dashboards
of one model). Kept apart from widget.py, which holds the Board's traits and lifecycle."""

from __future__ import annotations

from .cells import execution_count


class DisplayOnce:
    """Mixed into ``tbnb.Board`` (an ipywidget: ``_repr_mimebundle_``)."""

    _hidden_in: int | None = None

    def displayed_in(self, execution: int | None) -> None:
        """Say that ``show()`` displayed this board in cell execution ``execution``: displaying
        it again as that cell's last line is then skipped (see ``_ipython_display_``)."""
        self._hidden_in = execution

    def _ipython_display_(self) -> None:
        """Display the widget, except right after ``show()`` displayed it in the same cell."""
        from IPython.display import display

        if self._hidden_in is not None and self._hidden_in == execution_count():
            self._hidden_in = None
            return
        self._hidden_in = None
        mimebundle = getattr(self, "_repr_mimebundle_", None)
        bundle = mimebundle() if callable(mimebundle) else None
        if bundle is None:  # a closed widget: ipywidgets removes its widget view
            display({"text/plain": repr(self)}, raw=True)
            return
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        display(data, metadata=metadata, raw=True)
