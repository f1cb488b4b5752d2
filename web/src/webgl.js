// Whether this browser can draw the demo (WebGL), and the plain message the
// page shows when it cannot: without it three.js cannot start, and the page
// would otherwise say "connecting…" for ever.
/** Whether a canvas gives a WebGL 2 context, which three.js needs. */
export function hasWebGL() {
  try {
    return !!document.createElement('canvas').getContext('webgl2');
  } catch {
    return false;
  }
}

/** Say so in the view and the status line; window.clashdDemo.webgl is false (the browser test reads it). */
export function noWebGL(why) {
  const text = 'This page draws the parts with WebGL, which this browser does not give it' +
    `${why ? ` (${why})` : ''}: turn on WebGL or hardware acceleration, or use another browser. ` +
    'clashd itself works without it (its API, the clash command).';
  const message = document.createElement('p');
  message.id = 'no-webgl';
  message.textContent = text;
  document.getElementById('view').replaceChildren(message);
  const status = document.getElementById('status');
  status.className = 'error';
  status.textContent = text;
  window.clashdDemo = { ready: false, webgl: false, message: text };
}
