/**
 * `npm run openapi:types`: writes the TypeScript declarations openapi-typescript generates from the
 * service's OpenAPI document, which the generated-client test (test/http/docs/client.test.ts)
 * calls every endpoint with. That test fails, naming this command, when they are out of date.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Api } from "@payments-gaming/api/Api"
import { generateTypes } from "@payments-gaming/openapi-typegen"
import { OpenApi } from "effect/http-api"

const target = join(import.meta.dirname, "..", "test", "http", "docs", "generated", "openapi.d.ts")
writeFileSync(target, await generateTypes(OpenApi.fromApi(Api)))
console.error(`Wrote ${target}`)
