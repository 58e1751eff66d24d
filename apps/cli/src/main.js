#!/usr/bin/env -S node --conditions=payments-gaming-source
// Plain JavaScript that parses on any Node: installed as the `payments-gaming` bin, this file runs on
// whatever `node` the shell finds first, which may be older than the Node 24 the commands need (they
// are TypeScript, type-stripped). An older Node hands the run to the project's pinned Node (the `node`
// package npm installed beside us), with the same arguments, terminal and exit code; without one, it
// refuses in one line instead of dying on a SyntaxError.
if (Number(process.versions.node.split(".")[0]) < 24) {
  const { createRequire } = await import("node:module")
  const { spawnSync } = await import("node:child_process")
  const { fileURLToPath } = await import("node:url")
  let pinned
  try {
    pinned = createRequire(import.meta.url).resolve("node/bin/node")
  } catch {
    console.error(
      `payments-gaming needs Node 24 or newer, and this is Node ${process.versions.node}: run it as \`npm run cli --\`, or put Node 24 first on PATH`
    )
    process.exit(1)
  }
  const args = ["--conditions=payments-gaming-source", fileURLToPath(import.meta.url), ...process.argv.slice(2)]
  const run = spawnSync(pinned, args, { stdio: "inherit" })
  process.exit(run.status ?? 1)
}

// Whatever this process creates is private to its user (0700 directories, 0600 files), before
// anything is written: the embedded database, its socket, the lock and the development secrets
// under DATA_DIR (issue 34; packages/adapters/src/postgres/PrivateFiles.ts).
process.umask(0o077)

// Node keeps the compiled and type-stripped modules in its on-disk compile cache, so every run
// after the first starts in about two thirds of the time: an operator's `token mint` or `--help`
// answers in well under half a second. It must be on before the command's modules load, hence
// this launcher and the dynamic import. Plain JavaScript for the reason apps/http/src/main.js
// gives: a TypeScript launcher loads Node's type stripper into every run (--help: 0.44-0.52 s from
// a TypeScript launcher, 0.37-0.42 s from this one).
const { enableCompileCache } = await import("node:module")
enableCompileCache()
await import("./Cli.ts")
