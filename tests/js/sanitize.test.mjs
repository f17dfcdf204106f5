// The Markdown policy (js/src/sanitize.js) on hostile and on ordinary Markdown, with the very
// libraries the bundle carries (js/src/markdown_libs.js) and a real DOM (jsdom, a dev dependency).
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import {
  ALLOWED_TAGS,
  FORBID_TAGS,
  enforceLinks,
  isSafeUrl,
  renderMarkdown,
  sanitizeHtml,
} from "../../js/src/dashboards/text/sanitize.js";

const require = createRequire(new URL("../../js/package.json", import.meta.url));
const { JSDOM } = require("jsdom");
await import("../../js/src/dashboards/text/markdown_libs.js");
const libs = globalThis.__tbnb_markdown_libs__;
const { window } = new JSDOM("<!doctype html><html><body></body></html>");
const { document } = window;

/** A rendered fragment in a <div> (to query and to serialise). */
function box(fragment) {
  const div = document.createElement("div");
  div.append(fragment);
  return div;
}
const md = (source) => box(renderMarkdown(libs, source, window));
const html = (source) => box(sanitizeHtml(libs, source, window));

/** Nothing executable or forbidden is left anywhere in `div`. */
function assertInert(div, source) {
  const text = div.innerHTML;
  for (const tag of ["script", "style", "iframe", "object", "embed", "form", "input", "svg", "math", "button", "textarea", "select", "link", "meta", "base", "frame", "template"]) {
    assert.equal(div.querySelector(tag), null, `<${tag}> survived ${JSON.stringify(source)}: ${text}`);
  }
  for (const el of div.querySelectorAll("*")) {
    for (const { name, value } of el.attributes) {
      assert.ok(!/^on/i.test(name), `event handler ${name} survived: ${text}`);
      assert.ok(!["style", "id", "name", "class", "srcset", "formaction", "action"].includes(name), `${name} survived: ${text}`);
      assert.doesNotMatch(value, /javascript:|vbscript:|data:/i, `a dangerous URL survived in ${name}: ${text}`);
      if (name === "href" || name === "src") {
        assert.match(value, name === "href" ? /^(https?:\/\/|mailto:)/i : /^https?:\/\//i, `${name}=${value} survived: ${text}`);
      }
    }
    assert.ok(ALLOWED_TAGS.includes(el.localName), `<${el.localName}> is not in the allow-list: ${text}`);
  }
}

const HOSTILE = [
  "<script>alert(1)</script>",
  "hello <script src=https://evil.example/x.js></script> world",
  '<img src=x onerror="alert(1)">',
  '<img src="https://ok.example/a.png" onload=alert(1) onerror=alert(2)>',
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  "[click](java\tscript:alert(1))",
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "![pixel](data:image/png;base64,iVBORw0KGgo=)",
  '<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=">',
  '<img src="javascript:alert(1)">',
  "<iframe src=https://evil.example></iframe>",
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  "<object data=https://evil.example/x.swf></object><embed src=https://evil.example/x.swf>",
  '<svg onload=alert(1)><script>alert(1)</script><circle r=4 /></svg>',
  "<svg><a xlink:href=javascript:alert(1)><text>x</text></a></svg>",
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
  "<style>body{display:none}</style><p style='color:red'>styled</p>",
  "<form action=https://evil.example><input name=q><button formaction=javascript:alert(1)>go</button></form>",
  "<details open ontoggle=alert(1)><summary>s</summary>x</details>",
  '<div id="x" class="jp-Notebook" name="y">clobber</div>',
  '<a href="https://ok.example" target="_self" rel="opener" onclick="alert(1)">ok</a>',
  "<base href=https://evil.example/><link rel=stylesheet href=https://evil.example/x.css><meta http-equiv=refresh content=0>",
  "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
  "<template><script>alert(1)</script></template>",
  '<p>[x](<javascript:alert(1)>)</p> <a href="vbscript:msgbox(1)">v</a>',
];

test("hostile Markdown and HTML: no script, handler, javascript:/data: URL, frame, form, svg or style survives", () => {
  for (const source of HOSTILE) {
    assertInert(md(source), source);
    assertInert(html(source), source);
  }
});

test("hostile input leaves its harmless text behind", () => {
  assert.match(md("hello <script>alert(1)</script> world").textContent, /hello\s+world/);
  assert.equal(md("[click](javascript:alert(1))").querySelector("a[href]"), null);
  assert.match(md("[click](javascript:alert(1))").textContent, /click/);
  assert.equal(md("<p style='color:red'>styled</p>").querySelector("p").textContent, "styled");
});

test("ordinary Markdown survives: tables, lists, links, code, emphasis, images", () => {
  const div = md(
    [
      "# Results",
      "",
      "| run | acc |",
      "|-----|:---:|",
      "| a   | 0.9 |",
      "",
      "- one",
      "- two",
      "",
      "1. first",
      "",
      "See [the docs](https://example.org/docs \"Docs\") or <mailto:a@example.org>, **bold** and _it_.",
      "",
      "Inline `code` and:",
      "",
      "```python",
      "print('<b>hi</b>')",
      "```",
      "",
      "![plot](https://example.org/p.png)",
      "",
      "> quoted",
    ].join("\n"),
  );
  assertInert(div, "ordinary");
  assert.equal(div.querySelector("h1").textContent, "Results");
  assert.equal(div.querySelectorAll("table tr").length, 2);
  assert.equal(div.querySelector("th:nth-child(2)").getAttribute("align"), "center");
  assert.deepEqual([...div.querySelectorAll("ul li")].map((li) => li.textContent), ["one", "two"]);
  assert.equal(div.querySelectorAll("ol li").length, 1);
  assert.equal(div.querySelector("strong").textContent, "bold");
  assert.equal(div.querySelector("em").textContent, "it");
  assert.equal(div.querySelector("p code").textContent, "code");
  assert.equal(div.querySelector("pre code").textContent, "print('<b>hi</b>')\n", "code stays text");
  assert.equal(div.querySelector("pre b"), null);
  assert.equal(div.querySelector("img").getAttribute("src"), "https://example.org/p.png");
  assert.equal(div.querySelector("blockquote").textContent.trim(), "quoted");
  const links = [...div.querySelectorAll("a")];
  assert.deepEqual(links.map((a) => a.getAttribute("href")), ["https://example.org/docs", "mailto:a@example.org"]);
  assert.equal(links[0].getAttribute("title"), "Docs");
  for (const a of links) {
    assert.equal(a.getAttribute("target"), "_blank");
    assert.equal(a.getAttribute("rel"), "noopener noreferrer");
  }
});

test("a link's own target and rel are replaced", () => {
  const a = md('<a href="https://ok.example" target="_self" rel="opener">ok</a>').querySelector("a");
  assert.equal(a.getAttribute("target"), "_blank");
  assert.equal(a.getAttribute("rel"), "noopener noreferrer");
});

test("relative URLs are dropped (they would point into the Jupyter server)", () => {
  const div = md("[api](/api/contents) ![x](files/secret.png) [rel](other.md)");
  assert.equal(div.querySelector("a[href]"), null);
  assert.equal(div.querySelector("img"), null);
});

test("isSafeUrl: http(s) for src, http(s) and mailto for href, control characters do not help", () => {
  assert.ok(isSafeUrl("https://a.example/x", "href"));
  assert.ok(isSafeUrl("HTTP://a.example", "src"));
  assert.ok(isSafeUrl("mailto:x@y.z", "href"));
  assert.ok(!isSafeUrl("mailto:x@y.z", "src"));
  for (const bad of ["javascript:alert(1)", " javascript:alert(1)", "java\nscript:alert(1)", "\u0001javascript:x", "data:text/html,x", "vbscript:x", "/relative", "//evil.example/x", "", null]) {
    assert.ok(!isSafeUrl(bad, "href"), String(bad));
    assert.ok(!isSafeUrl(bad, "src"), String(bad));
  }
});

test("the final pass alone removes handlers and unsafe URLs and sets link targets", () => {
  // Built by hand, as if a hook had not run: the pass must still make it inert.
  const div = document.createElement("div");
  const a = document.createElement("a");
  a.setAttribute("href", "javascript:alert(1)");
  a.setAttribute("onclick", "alert(1)");
  const b = document.createElement("a");
  b.setAttribute("href", "https://ok.example");
  const img = document.createElement("img");
  img.setAttribute("src", "data:image/png;base64,AA");
  const p = document.createElement("p");
  p.setAttribute("style", "x");
  p.setAttribute("onmouseover", "alert(1)");
  div.append(a, b, img, p);
  enforceLinks(div);
  assert.equal(a.hasAttribute("href"), false);
  assert.equal(a.hasAttribute("onclick"), false);
  assert.equal(a.hasAttribute("target"), false);
  assert.equal(b.getAttribute("target"), "_blank");
  assert.equal(b.getAttribute("rel"), "noopener noreferrer");
  assert.equal(div.querySelector("img"), null);
  assert.equal(p.attributes.length, 0);
});

test("without a DOM DOMPurify can run in, the source is shown as text, never as HTML", () => {
  const fake = { document: window.document }; // no Element, no implementation: unsupported
  const div = box(renderMarkdown(libs, "<img src=x onerror=alert(1)> **b**", fake));
  assert.equal(div.querySelector("img"), null);
  assert.equal(div.querySelector("pre").textContent, "<img src=x onerror=alert(1)> **b**");
  const div2 = box(sanitizeHtml(libs, "<script>alert(1)</script>", fake));
  assert.equal(div2.querySelector("script"), null);
});

test("the policy forbids what the brief names", () => {
  for (const tag of ["script", "iframe", "object", "embed", "style", "form", "input", "svg", "math"]) {
    assert.ok(FORBID_TAGS.includes(tag), tag);
    assert.ok(!ALLOWED_TAGS.includes(tag), tag);
  }
});
