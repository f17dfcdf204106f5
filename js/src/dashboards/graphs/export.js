// Download the drawn graph as SVG or PNG: the SVG element cloned with the whole graph in its
// view box (its styles are attributes, so the file stands alone).

import { saveBlob } from "../../download.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** The graph as a standalone SVG document: `scene` (the <g> holding it) over `box`. */
export function svgText(scene, box) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("xmlns", SVG_NS);
  const m = 10;
  svg.setAttribute("viewBox", `${-m} ${-m} ${box.width + 2 * m} ${box.height + 2 * m}`);
  svg.setAttribute("width", String(Math.ceil(box.width + 2 * m)));
  svg.setAttribute("height", String(Math.ceil(box.height + 2 * m)));
  svg.setAttribute("font-family", "sans-serif");
  svg.setAttribute("font-size", "11");
  const copy = scene.cloneNode(true);
  copy.removeAttribute("transform");
  svg.append(copy);
  return new XMLSerializer().serializeToString(svg);
}

export function downloadSvg(fileName, scene, box) {
  saveBlob(fileName, new Blob([svgText(scene, box)], { type: "image/svg+xml" }));
}

/** PNG at twice the drawn size (at most 16k pixels a side). */
export function downloadPng(fileName, scene, box) {
  const text = svgText(scene, box);
  const img = new Image();
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  img.onload = () => {
    const scale = Math.max(0.1, Math.min(2, 16000 / Math.max(box.width + 20, box.height + 20)));
    const canvas = document.createElement("canvas");
    canvas.width = Math.ceil((box.width + 20) * scale);
    canvas.height = Math.ceil((box.height + 20) * scale);
    const ctx = canvas.getContext("2d");
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    URL.revokeObjectURL(url);
    canvas.toBlob((blob) => blob && saveBlob(fileName, blob), "image/png");
  };
  img.src = url;
}
