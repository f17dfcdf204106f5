// The Markdown renderer and the sanitiser as one classic script, built apart from the bundle
// (see build.mjs) and run by markdown.js only when a text card needs it. It hands the two
// libraries to the page on a global; sanitize.js holds the policy they are used with.

import createDOMPurify from "dompurify";
import { Marked } from "marked";

globalThis.__tbnb_markdown_libs__ = { Marked, createDOMPurify };
