// Code built apart from the bundle (js/build.mjs LAZY: the projector's view, the media view) and sent
// by the kernel on first use runs once per page as a classic script that registers itself on
// globalThis; this is the one runner of such code.

/** Run `bytes` as a classic script; resolves with what it put on `globalThis[global]` (`what`
 * names the code in the error when it could not run or did not register). */
export function runViewScript(bytes, global, what) {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
    const script = document.createElement("script");
    const done = (error) => {
      URL.revokeObjectURL(url);
      script.remove();
      if (!error && globalThis[global]) resolve(globalThis[global]);
      else reject(error || new Error(`${what} ran but did not register`));
    };
    script.onload = () => done(null);
    script.onerror = () => done(new Error(`${what} could not be run`));
    script.src = url;
    document.head.appendChild(script);
  });
}
