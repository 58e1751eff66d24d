import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..", "..")
const doc = readFileSync(join(root, "docs", "security.md"), "utf8")

/**
 * Every `<package>/test/…` or `test/…` (the suites that cross packages) file: "test title" that
 * docs/security.md names as the check of one of its lines.
 */
const references = [...doc.matchAll(/`((?:(?:packages|apps)\/[^`/]+\/)?test\/[^`]+\.test\.ts)`: "([^"]+)"/g)].map(
  (match) => ({
    file: match[1] as string,
    title: match[2] as string
  })
)

describe("docs/security.md", () => {
  it("names a test for its lines", () => {
    assert.isAtLeast(references.length, 25)
    // Every test file the page names exists, with or without a title (a moved file is caught here).
    const named = [...doc.matchAll(/`([^`\s]*test\/[^`\s]+\.test\.ts)`/g)].map((match) => match[1] as string)
    assert.deepStrictEqual(
      named.filter((file) => !existsSync(join(root, file))),
      []
    )
  })

  it("names only tests that exist, with their exact titles", () => {
    const missing = references.filter(({ file, title }) => {
      let source: string
      try {
        source = readFileSync(join(root, file), "utf8")
      } catch {
        return true
      }
      // A title is a string literal of the file, as it: / it.effect: are given it.
      return (
        !source.includes(JSON.stringify(title)) && !source.includes(`'${title}'`) && !source.includes(`\`${title}\``)
      )
    })
    assert.deepStrictEqual(
      missing.map(({ file, title }) => `${file}: "${title}"`),
      []
    )
  })
})
