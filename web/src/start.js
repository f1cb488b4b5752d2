// The page's entry: the demo (main.js) when the browser has WebGL, else a
// plain message (webgl.js).  main.js is bundled into the same file.
import { hasWebGL, noWebGL } from './webgl.js';

if (!hasWebGL()) noWebGL();
else {
  import('./main.js').catch((e) => {
    // a context refused after all: main.js said so (webgl.js)
    if (window.clashdDemo?.webgl === false) return;
    const status = document.getElementById('status');
    status.className = 'error';
    status.textContent = `the demo failed to start: ${e.message ?? e}`;
  });
}
