// Save text or a Blob as a file through the browser: a Blob URL on a temporary <a download>.

export function saveText(fileName, text, mime) {
  saveBlob(fileName, new Blob([text], { type: mime }));
}

/** Save a Blob (text, an SVG document, PNG bytes) as `fileName`. */
export function saveBlob(fileName, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
