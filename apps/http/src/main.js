#!/usr/bin/env -S node --conditions=payments-gaming-source
// Installed as the `payments-gaming-service` bin, which `payments-gaming serve` runs (on Node 24:
// the CLI's launcher sees to it). Run from a shell on an older Node, it says so in one line.
if (Number(process.versions.node.split(".")[0]) < 24) {
  console.error(
    `payments-gaming-service needs Node 24 or newer, and this is Node ${process.versions.node}: run npm start`
  )
  process.exit(1)
}
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
const { enableCompileCache } = await import("node:module")
enableCompileCache()
await import("./RunService.ts")
