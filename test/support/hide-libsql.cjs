// Preloaded into a child process (NODE_OPTIONS=--require …): the optional native engine (libsql) cannot be
// loaded, as on an install with `npm ci --omit=optional` or a platform without its prebuilt binary.
const Module = require("node:module")
const resolve = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  if (request === "libsql" || request.startsWith("@libsql/")) {
    const e = new Error(`Cannot find module '${request}'`)
    e.code = "MODULE_NOT_FOUND"
    throw e
  }
  return resolve.call(this, request, ...rest)
}
