import { Api } from "@payments-gaming/api/Api"
import { DOCS_PATH, METRICS_PATH, OPENAPI_PATH } from "@payments-gaming/api/Paths"
import * as RouteTable from "./RouteTable.ts"

/**
 * The service's routes and their policies: the API's, from its annotations, and the three served
 * beside it (Server.ts): `/metrics` and `/openapi.json` operational (never rate limited), `/docs`
 * counted like any client route (a 3.2 MB page, compressed but still the largest answer: issue 34).
 * Built once, when first imported.
 */
export const routeTable: RouteTable.RouteTable = RouteTable.make(Api, [
  { method: "GET", path: DOCS_PATH, rateLimit: "client" },
  { method: "GET", path: METRICS_PATH, rateLimit: "operational" },
  { method: "GET", path: OPENAPI_PATH, rateLimit: "operational" }
])
