// The environment the bridge process runs with, where it differs from the caller's: glibc's
// malloc arenas capped at 2 (MALLOC_ARENA_MAX) unless the caller chose. The bridge's native
// libraries (sharp/libvips, the encode workers) allocate from many threads, and with glibc's
// default of up to 8 arenas per core its RSS grew in steps under a steady load while the JS heap
// stayed flat: `npm run bench -- --only soak --soak-minutes 10` measured 2.32 MB/min by default
// and 0.90 MB/min with 2 arenas (the same run, the same machine). sharp recommends the same on
// glibc. Plain JavaScript: npm start runs this before any dependency is installed.

/** `env` with the bridge's defaults filled in (values already set are kept). */
export function bridgeProcessEnv(env) {
  return { MALLOC_ARENA_MAX: '2', ...env };
}
