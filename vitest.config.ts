import { defineConfig } from "vitest/config"

export default defineConfig({
  // Resolve our workspace packages to their TypeScript sources, as Node does with
  // --conditions=payments-gaming-source (imports of them may be left to Node as externals).
  resolve: { conditions: ["payments-gaming-source"] },
  ssr: { resolve: { conditions: ["payments-gaming-source"], externalConditions: ["payments-gaming-source"] } },
  test: {
    include: [
      // Unit and adapter tests live in the package they test (packages/domain/src holds none); the
      // suites that cross packages (HTTP and CLI end to end, the architecture rule, fuzz, faults) in
      // test/ (test/architecture/architecture.test.ts).
      "packages/*/test/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
      "test/**/*.test.ts"
    ],
    globalSetup: ["packages/adapters/test/support/globalSetup.ts", "test/support/bundleSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default"],
    // A green run prints the summary; a failing test still shows everything it logged.
    silent: "passed-only"
  }
})
