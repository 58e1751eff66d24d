import { enableCompileCache } from "node:module"

// Node keeps the compiled (and type-stripped) modules in its on-disk compile cache, so every start
// after the first skips most of the compiling of several hundred modules: a restart or a deploy
// reaches /readyz sooner. It must be on before the service's modules load, hence this launcher and
// the dynamic import.
enableCompileCache()
await import("./RunService.ts")
