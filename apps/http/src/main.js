import { enableCompileCache } from "node:module"

// Node keeps the compiled and type-stripped modules in its on-disk compile cache, so every start
// after the first skips most of the compiling (of several hundred modules from the sources, of the
// bundle's few large ones under `npm start`: scripts/bundle-service.mjs): a restart or a deploy
// reaches /readyz sooner. It must be on before the service's modules load, hence this launcher and
// the dynamic import.
//
// Plain JavaScript on purpose: a TypeScript launcher must itself be type-stripped before it can turn
// the cache on, which loads Node's type stripper (a WebAssembly module) into every process. From
// this file, a start whose modules are all in the cache never loads it: 16-20 MiB less resident
// memory and 0.1-0.5 s sooner to /readyz, measured side by side (issue 16).
// Whatever this process creates is private to its user (0700 directories, 0600 files), before
// anything is written: the embedded database, its socket, the lock and the development secrets
// under DATA_DIR (issue 34; packages/adapters/src/postgres/PrivateFiles.ts).
process.umask(0o077)
enableCompileCache()
await import("./RunService.ts")
