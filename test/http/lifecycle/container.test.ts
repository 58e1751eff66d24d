import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { load } from "js-yaml"
import { ROOT } from "../../support/NodeProcess.ts"

/**
 * The container recipe (Dockerfile, compose.yaml), checked without a Docker daemon: CI has none,
 * and pulling base images would make it depend on the network. The Dockerfile is parsed into its
 * instructions and held to what operators rely on; where a daemon answers, `docker build --check`
 * runs too.
 */

interface Instruction {
  readonly keyword: string
  readonly args: string
  readonly line: number
}

const KEYWORDS = new Set([
  "ADD",
  "ARG",
  "CMD",
  "COPY",
  "ENTRYPOINT",
  "ENV",
  "EXPOSE",
  "FROM",
  "HEALTHCHECK",
  "LABEL",
  "ONBUILD",
  "RUN",
  "SHELL",
  "STOPSIGNAL",
  "USER",
  "VOLUME",
  "WORKDIR"
])

/** Dockerfile instructions: comments and blank lines dropped, `\` continuations joined. */
const parseDockerfile = (text: string): Array<Instruction> => {
  const instructions: Array<Instruction> = []
  let pending = ""
  let start = 0
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd()
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) return
    if (pending === "") start = index + 1
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `
      return
    }
    const whole = (pending + line).trim()
    pending = ""
    const [keyword = "", ...rest] = whole.split(/\s+/)
    instructions.push({ keyword: keyword.toUpperCase(), args: rest.join(" "), line: start })
  })
  assert.strictEqual(pending, "", "a continuation runs past the end of the file")
  return instructions
}

const stagesOf = (instructions: ReadonlyArray<Instruction>) => {
  const stages: Array<{ name: string | undefined; instructions: Array<Instruction> }> = []
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const name = /\sAS\s+([\w.-]+)$/i.exec(instruction.args)?.[1]
      stages.push({ name, instructions: [] })
    } else {
      stages.at(-1)?.instructions.push(instruction)
    }
  }
  return stages
}

const rootPackage = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  workspaces: Array<string>
  scripts: Record<string, string>
  devDependencies: Record<string, string>
}

const dockerDaemon = spawnSync("docker", ["info"], { stdio: "ignore", timeout: 10_000 }).status === 0

describe("the container recipe", () => {
  const instructions = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"))
  const stages = stagesOf(instructions)

  it("the Dockerfile parses into known instructions, in stages that name what they copy from", () => {
    for (const instruction of instructions) {
      assert.isTrue(KEYWORDS.has(instruction.keyword), `line ${instruction.line}: ${instruction.keyword}`)
    }
    assert.isAtLeast(stages.length, 2, "a multi-stage build")
    const names = stages.map((stage) => stage.name)
    stages.forEach((stage, index) => {
      for (const copy of stage.instructions.filter((instruction) => instruction.keyword === "COPY")) {
        const from = /--from=(\S+)/.exec(copy.args)?.[1]
        if (from !== undefined) assert.include(names.slice(0, index), from, `line ${copy.line}: an earlier stage`)
      }
    })
    // Every JSON-array form is valid JSON.
    for (const instruction of instructions) {
      if (instruction.args.startsWith("["))
        assert.doesNotThrow(() => JSON.parse(instruction.args), `line ${instruction.line}`)
    }
  })

  it("builds with the pinned Node and every workspace's manifest before npm ci, then bundles and prunes", () => {
    const version = /^ARG NODE_VERSION=(\S+)$/m.exec(readFileSync(join(ROOT, "Dockerfile"), "utf8"))?.[1]
    assert.strictEqual(version, rootPackage.devDependencies.node)
    const build = stages[0]!.instructions
    const install = build.findIndex(
      (instruction) => instruction.keyword === "RUN" && /\bnpm ci\b/.test(instruction.args)
    )
    assert.isAtLeast(install, 0)
    const copied = build.slice(0, install).filter((instruction) => instruction.keyword === "COPY")
    for (const workspace of rootPackage.workspaces) {
      assert.isTrue(
        copied.some((copy) => copy.args.startsWith(`${workspace}/package.json `)),
        `${workspace}/package.json is copied before npm ci`
      )
    }
    for (const copy of copied) {
      const sources = copy.args.split(/\s+/).slice(0, -1)
      for (const source of sources) assert.isTrue(existsSync(join(ROOT, source)), `${source} exists`)
    }
    assert.isTrue(
      build.some(
        (instruction) =>
          instruction.keyword === "RUN" && /npm run bundle && npm prune --omit=dev/.test(instruction.args)
      )
    )
  })

  it("runs the bundle as npm start does, as a non-root user, with an exec-form entry point, listening on all addresses", () => {
    const runtime = stages.at(-1)!.instructions
    const user = runtime.filter((instruction) => instruction.keyword === "USER").at(-1)
    assert.isDefined(user)
    assert.notMatch(user.args, /^(root|0)(:|$)/)
    const entry = runtime.filter((instruction) => instruction.keyword === "ENTRYPOINT").at(-1)
    assert.isDefined(entry)
    const argv = JSON.parse(entry.args) as Array<string>
    // npm start's own command line: `exec node <flags> apps/http/dist/bundle/main.js`.
    const start = /exec node (.+)$/.exec(rootPackage.scripts.start ?? "")?.[1]?.split(" ")
    assert.deepStrictEqual(argv, ["node", ...(start ?? [])])
    const env = runtime
      .filter((instruction) => instruction.keyword === "ENV")
      .map((instruction) => instruction.args)
      .join(" ")
    assert.match(env, /\bHOST=0\.0\.0\.0\b/)
    assert.match(env, /\bNODE_ENV=production\b/)
    // Two malloc arenas, as npm start runs it (docs/operations.md §1): glibc reads it at process
    // start, so it is the environment's, not a flag.
    assert.match(env, /\bMALLOC_ARENA_MAX=2\b/)
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's default-value expansion, verbatim
    assert.include(rootPackage.scripts.start ?? "", "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} exec node ")
    assert.isFalse(
      runtime.some((instruction) => instruction.keyword === "CMD"),
      "no CMD to override the entry point's"
    )
  })

  it("compose.yaml parses and runs the image on its PostgreSQL, with the production secrets required", () => {
    const compose = load(readFileSync(join(ROOT, "compose.yaml"), "utf8")) as {
      services: Record<
        string,
        {
          image?: string
          build?: string
          environment?: Record<string, string>
          depends_on?: Record<string, { condition: string }>
        }
      >
    }
    const postgres = compose.services.postgres
    const service = compose.services.service
    assert.isDefined(postgres)
    assert.isDefined(service)
    assert.match(postgres.image ?? "", /^postgres:/)
    assert.strictEqual(service.build, ".")
    assert.deepStrictEqual(service.depends_on, { postgres: { condition: "service_healthy" } })
    assert.match(service.environment?.DATABASE_URL ?? "", /@postgres:5432\//)
    for (const secret of ["AUTH_JWT_SECRET", "INTERNAL_API_KEY", "WEBHOOK_SECRETS", "CARD_FINGERPRINT_KEY"]) {
      assert.match(service.environment?.[secret] ?? "", new RegExp(`^\\$\\{${secret}:\\?`), `${secret} is required`)
    }
  })

  it.skipIf(!dockerDaemon)("docker build --check passes (only where a Docker daemon answers)", () => {
    const check = spawnSync("docker", ["build", "--check", "."], { cwd: ROOT, encoding: "utf8", timeout: 300_000 })
    assert.strictEqual(check.status, 0, `${check.stdout}\n${check.stderr}`)
  })
})
