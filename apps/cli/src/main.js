#!/usr/bin/env -S node --conditions=payments-gaming-source
import { enableCompileCache } from "node:module"

// Node keeps the compiled and type-stripped modules in its on-disk compile cache, so every run
// after the first starts in about two thirds of the time: an operator's `token mint` or `--help`
// answers in well under half a second. It must be on before the command's modules load, hence
// this launcher and the dynamic import. Plain JavaScript for the reason apps/http/src/main.js
// gives: a TypeScript launcher loads Node's type stripper into every run (--help: 0.44-0.52 s from
// a TypeScript launcher, 0.37-0.42 s from this one).
// Whatever this process creates is private to its user (0700 directories, 0600 files), before
// anything is written: the embedded database, its socket, the lock and the development secrets
// under DATA_DIR (issue 34; packages/adapters/src/postgres/PrivateFiles.ts).
process.umask(0o077)
enableCompileCache()
await import("./Cli.ts")
