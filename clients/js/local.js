// The collision core in the page: clashd's own core/ and proto/ compiled to
// WebAssembly (gen/clashd-core.wasm, built by the Makefile from
// clients/js/wasm/), answering POST /v1/query bodies and POST /v1/shapes
// uploads with the bytes clashd would answer, without a round trip.  The
// module holds a shape store of its own, so that {"ref": id} queries are
// answered against shapes decoded and prepared once.  Clashd (clashd.js)
// uses it when asked to (`local`); it may be used alone too:
//
//   const core = await LocalCore.load();
//   const { status, body } = core.answer('/v1/query', JSON.stringify(query));

/** The routes the module answers, by the number its clashd_answer takes. */
const ROUTES = Object.freeze({ '/v1/query': 0, '/v1/shapes': 1 });

const DEFAULT_BUDGET = 256 * 1024 * 1024; // bytes of shapes the page's store keeps

// WASI's errno values the module may see.
const ESUCCESS = 0, EBADF = 8, ENOSYS = 52;

// The few WASI calls wasi-libc makes here: the clock (jansson's hash seed),
// randomness (the store's salt) and stdio, which the module never uses for
// anything but a failed assertion's message.
function wasiImports(memory) {
  return {
    clock_time_get(_id, _precision, out) {
      const ns = BigInt(Math.round(performance.timeOrigin * 1e6)) + BigInt(Math.round(performance.now() * 1e6));
      new DataView(memory().buffer).setBigUint64(out, ns, true);
      return ESUCCESS;
    },
    random_get(ptr, len) {
      for (let k = 0; k < len; k += 65536)
        globalThis.crypto.getRandomValues(new Uint8Array(memory().buffer, ptr + k, Math.min(65536, len - k)));
      return ESUCCESS;
    },
    fd_write: () => EBADF,
    fd_seek: () => ENOSYS,
    fd_close: () => EBADF,
  };
}

// The module's bytes: a URL (file: read with node's fs), a Response, an
// ArrayBuffer or a typed array.
async function moduleBytes(source) {
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (typeof Response !== 'undefined' && source instanceof Response) return source.arrayBuffer();
  const url = new URL(String(source), globalThis.location?.href);
  if (url.protocol === 'file:') {
    const fs = globalThis.process?.getBuiltinModule?.('node:fs');
    const { fileURLToPath } = globalThis.process?.getBuiltinModule?.('node:url') ?? {};
    if (!fs || !fileURLToPath) throw new Error('clashd local: a file: URL needs node >= 20.16');
    return fs.promises.readFile(fileURLToPath(url));
  }
  const r = await fetch(url);
  if (!r.ok) throw new Error(`clashd local: ${url} answered ${r.status}`);
  return r.arrayBuffer();
}

export class LocalCore {
  #x; // the instance's exports
  #enc = new TextEncoder();
  #dec = new TextDecoder();

  /**
   * Compile and start the module.  `wasm`: where its bytes are (default
   * gen/clashd-core.wasm beside this file; a bundled page passes the URL
   * it serves the file at), or a WebAssembly.Module; `budget`: bytes of
   * shapes the page's store keeps (default 256 MiB).
   */
  static async load({ wasm, budget = DEFAULT_BUDGET } = {}) {
    const mod = wasm instanceof WebAssembly.Module ? wasm
      : await WebAssembly.compile(await moduleBytes(wasm ?? new URL('./gen/clashd-core.wasm', import.meta.url)));
    // The module calls WASI only once started (it is a reactor: no start
    // function runs in instantiate), when `instance` is set.
    const memory = () => instance.exports.memory;
    const instance = await WebAssembly.instantiate(mod, { wasi_snapshot_preview1: wasiImports(memory) });
    instance.exports._initialize();
    if (instance.exports.clashd_init(budget) !== 0) throw new Error('clashd local: out of memory');
    return new LocalCore(instance.exports);
  }

  constructor(exports) { this.#x = exports; }

  /**
   * Answer a request body (a string or UTF-8 bytes) of POST `route`
   * ('/v1/query' or '/v1/shapes') as clashd does: {status, contentType,
   * bytes} with the reply's bytes.
   */
  answerBytes(route, body) {
    const r = ROUTES[route];
    if (r === undefined) throw new RangeError(`clashd local: no route ${route}`);
    const x = this.#x;
    const bytes = typeof body === 'string' ? this.#enc.encode(body) : body;
    const ptr = x.clashd_alloc(bytes.length);
    if (ptr === 0) throw new Error('clashd local: out of memory');
    let status;
    try {
      new Uint8Array(x.memory.buffer, ptr, bytes.length).set(bytes);
      status = x.clashd_answer(r, ptr, bytes.length);
    } finally {
      x.clashd_free(ptr);
    }
    if (status < 0) throw new Error('clashd local: out of memory');
    const at = x.clashd_reply_body();
    const out = new Uint8Array(x.memory.buffer, at, x.clashd_reply_length()).slice();
    return { status, contentType: status < 300 ? 'application/json' : 'application/problem+json', bytes: out };
  }

  /** answerBytes with the reply's body as a string: {status, contentType, body}. */
  answer(route, body) {
    const { bytes, ...rest } = this.answerBytes(route, body);
    return { ...rest, body: this.#dec.decode(bytes) };
  }
}

export default LocalCore;
