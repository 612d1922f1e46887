// Deflated zip entries. The portable C++ zip reader (core/serde/archive_zip.h)
// parses the archive and reads stored entries in place; an entry stored with
// deflate (PyTorch never writes one, but a re-zipped .pt2 may have its JSON
// records compressed) is inflated here with fflate, the role libzip has in
// the native CLI. fflate is loaded on first need, so the common case costs
// nothing.

let inflateSync = null;
let loading = null;

/** The fflate inflater, or null until loadInflater() resolved. */
export function inflater() {
  return inflateSync;
}

/** Loads fflate once; rejects when it cannot be imported. */
export function loadInflater() {
  if (inflateSync) return Promise.resolve(inflateSync);
  // A bundler or Node resolves 'fflate'; a page without one (the static
  // site, scripts/serve.mjs) serves fflate's browser build as ./fflate.mjs.
  loading ??= import('fflate').catch(() =>
    import(/* webpackIgnore: true */ /* @vite-ignore */ new URL('./fflate.mjs', import.meta.url).href)).then(
    (m) => (inflateSync = m.inflateSync),
    (e) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

/** Installs an inflater given by the environment (Node imports fflate statically). */
export function setInflater(fn) {
  inflateSync = fn;
}
