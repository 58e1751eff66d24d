import { defineConfig } from "vitest/config"

export default defineConfig({
  // Resolve our workspace packages to their TypeScript sources, as Node does with
  // --conditions=payments-gaming-source (imports of them may be left to Node as externals).
  resolve: { conditions: ["payments-gaming-source"] },
  ssr: { resolve: { conditions: ["payments-gaming-source"], externalConditions: ["payments-gaming-source"] } },
  test: {
    include: [
      // Every test lives in the package it tests (packages/domain/src holds none: see architecture.test.ts).
      "packages/*/test/**/*.test.ts",
      "apps/*/test/**/*.test.ts"
    ],
    globalSetup: ["packages/adapters/test/support/globalSetup.ts", "apps/http/test/support/bundleSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default"],
    // A green run prints the summary; a failing test still shows everything it logged.
    silent: "passed-only"
  }
})
