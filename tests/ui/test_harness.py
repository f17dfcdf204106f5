"""Smoke test of the UI harness: a minimal anywidget renders in JupyterLab 4 and Notebook 7, the
comm carries changes both ways, the page logs no errors and makes no request off loopback."""

from __future__ import annotations

import pytest

from .harness import (
    REPO_ROOT,
    assert_no_js_errors,
    assert_only_loopback,
    cell_output,
    run_cell,
    run_notebook_in_browser,
    screenshot,
)

pytestmark = pytest.mark.ui

SMOKE_WIDGET = '''
import anywidget
import traitlets


class Smoke(anywidget.AnyWidget):
    _esm = """
    function render({ model, el }) {
      const div = document.createElement("div");
      div.className = "smoke-ok";
      div.dataset.updates = "0";
      div.style.cssText = "padding: 8px; border: 2px solid green; font: 16px sans-serif;";
      div.textContent = model.get("text");
      const onText = () => {
        div.textContent = model.get("text");
        div.dataset.updates = String(Number(div.dataset.updates) + 1);
      };
      model.on("change:text", onText);
      div.addEventListener("click", () => {
        model.set("clicks", model.get("clicks") + 1);
        model.save_changes();
      });
      el.appendChild(div);
      return () => model.off("change:text", onText);
    }
    export default { render };
    """
    text = traitlets.Unicode("").tag(sync=True)
    clicks = traitlets.Int(0).tag(sync=True)


w = Smoke(text="hello from python")
n = 0
w
'''
# The kernel imports this checkout's tbnb (the harness puts the repo root on PYTHONPATH).
TBNB_FROM_CHECKOUT = (
    f"import importlib.util\nassert importlib.util.find_spec('tbnb').origin.startswith({str(REPO_ROOT)!r})\n"
)

UPDATE_TEXT = 'n += 1\nw.text = f"update {n}"'
PRINT_CLICKS = 'print(f"clicks = {w.clicks}")'


def test_anywidget_renders_and_syncs(page, browser_log, jupyter_server, front_end):
    from playwright.sync_api import expect

    name = f"smoke_{front_end}.ipynb"
    jupyter_server.write_notebook(name, [TBNB_FROM_CHECKOUT + SMOKE_WIDGET, UPDATE_TEXT, PRINT_CLICKS])

    run_notebook_in_browser(page, jupyter_server, name, front_end)

    # Rendered, with the trait's value as of the end of the run (cell 2 ran once).
    smoke = page.locator(".smoke-ok")
    expect(smoke).to_have_count(1)
    expect(smoke).to_have_text("update 1")
    expect(cell_output(page, 2)).to_contain_text("clicks = 0")

    # Python -> JS: a trait change made after the view exists updates that same element.
    updates = int(smoke.get_attribute("data-updates"))
    run_cell(page, name, 1)
    expect(smoke).to_have_text("update 2")
    expect(smoke).to_have_attribute("data-updates", str(updates + 1))

    # JS -> Python: a click in the view reaches the kernel's trait.
    smoke.click()
    run_cell(page, name, 2)
    expect(cell_output(page, 2)).to_contain_text("clicks = 1")

    path = screenshot(page, f"ui-smoke-{front_end}")
    assert path.is_file() and path.stat().st_size > 0

    assert_no_js_errors(browser_log)
    assert_only_loopback(browser_log.requests)
    assert any(u.startswith(jupyter_server.url) for u in browser_log.requests)


# --------------------------------------------------------------------------------------------------
# The guards themselves: they must catch what they are there to catch.
# --------------------------------------------------------------------------------------------------

FAILING_WIDGET = '''
import anywidget


class Broken(anywidget.AnyWidget):
    _esm = """
    export default {
      render({ el }) {
        el.innerHTML = '<div class="broken-before-throw">partial</div>';
        throw new Error("tbnb-harness-render-failure");
      }
    };
    """


Broken()
'''


def test_guards_catch_offenders(page, browser_log):
    """No server: a page that goes off loopback and throws is reported by both assertions."""
    page.route("http://192.0.2.1/**", lambda route: route.abort())  # TEST-NET-1, never sent
    with page.expect_request("http://192.0.2.1/**"):
        page.set_content(
            "<script>fetch('http://192.0.2.1/beacon').catch(() => {});"
            "console.error('tbnb-harness-console-error');"
            "setTimeout(() => { throw new Error('tbnb-harness-uncaught'); }, 0);</script>"
        )
    page.wait_for_function("() => true")  # let the timer fire
    page.wait_for_timeout(100)

    with pytest.raises(AssertionError, match=r"192\.0\.2\.1/beacon"):
        assert_only_loopback(browser_log)
    assert_only_loopback(
        [
            "http://127.0.0.1:1/x",
            "ws://localhost:2/y",
            "http://[::1]:3/z",
            "data:text/plain,x",
            "blob:http://127.0.0.1:1/uuid",
            "about:blank",
        ]
    )
    with pytest.raises(AssertionError, match="tbnb-harness-uncaught"):
        assert_no_js_errors(browser_log)
    with pytest.raises(AssertionError, match="tbnb-harness-console-error"):
        assert_no_js_errors(browser_log)


@pytest.mark.parametrize("jupyter_server", ["lab"], indirect=True)
def test_cell_and_widget_errors_are_reported(page, browser_log, jupyter_server):
    """A raising cell fails run_notebook_in_browser with the exception; a widget whose render
    throws shows up in the JS error log (anywidget reports it as console.error and pageerror)."""
    from playwright.sync_api import expect

    name = "errors.ipynb"
    jupyter_server.write_notebook(name, [FAILING_WIDGET, "1 / 0", "print('not reached')"])
    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        run_notebook_in_browser(page, jupyter_server, name)
    expect(page.locator(".broken-before-throw")).to_have_count(1)
    expect(page.locator(".jp-Cell").nth(2).locator(".jp-InputArea-prompt")).to_have_text("[ ]:")
    with pytest.raises(AssertionError, match="tbnb-harness-render-failure"):
        assert_no_js_errors(browser_log)
    assert_only_loopback(browser_log)
