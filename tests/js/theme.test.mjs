// Which theme the host is in: what JupyterLab, VS Code and Colab say, else the page's background.
import test from "node:test";
import assert from "node:assert/strict";
import { isDarkColor, parseRgb, themeIsDark } from "../../js/src/core/theme.js";

test("the host's own word wins: JupyterLab, then VS Code, then Colab", () => {
  assert.equal(themeIsDark({ jpLight: "false", background: "rgb(255, 255, 255)" }), true);
  assert.equal(themeIsDark({ jpLight: "true", bodyClass: "vscode-dark" }), false);
  assert.equal(themeIsDark({ bodyClass: "vscode-body vscode-dark" }), true);
  assert.equal(themeIsDark({ bodyClass: "vscode-high-contrast" }), true);
  assert.equal(themeIsDark({ bodyClass: "vscode-high-contrast-light vscode-high-contrast" }), false);
  assert.equal(themeIsDark({ bodyClass: "vscode-light", background: "rgb(0, 0, 0)" }), false);
  assert.equal(themeIsDark({ htmlTheme: "dark" }), true);
  assert.equal(themeIsDark({ htmlTheme: "light", prefersDark: true }), false);
});

test("else the page's background, else the browser's preference", () => {
  assert.equal(themeIsDark({ background: "rgb(30, 30, 30)" }), true);
  assert.equal(themeIsDark({ background: "rgb(250, 250, 250)", prefersDark: true }), false);
  assert.equal(themeIsDark({ background: null, prefersDark: true }), true);
  assert.equal(themeIsDark({}), false);
});

test("colours as computed styles give them", () => {
  assert.deepEqual(parseRgb("rgba(10, 20, 30, 0.5)"), { r: 10, g: 20, b: 30, a: 0.5 });
  assert.deepEqual(parseRgb("rgb(1 2 3 / 50%)"), { r: 1, g: 2, b: 3, a: 0.5 });
  assert.equal(parseRgb("transparent"), null);
  assert.equal(isDarkColor("rgb(17, 17, 17)"), true);
  assert.equal(isDarkColor("rgb(128, 128, 128)"), true); // luminance 0.22
  assert.equal(isDarkColor("rgb(200, 200, 200)"), false);
  assert.equal(isDarkColor("nonsense"), null);
});
