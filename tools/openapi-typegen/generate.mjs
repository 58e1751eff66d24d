// openapi-typescript, run on a document in memory. It lives in this workspace package because it
// needs TypeScript 5's compiler API, and the repository's own TypeScript (7) has none: npm installs
// both side by side, and the import below finds the TypeScript 5 next to this file.
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript"

/** The TypeScript declarations of `document` (an OpenAPI 3 object), as `openapi-typescript` writes them. */
export const generateTypes = async (document) => COMMENT_HEADER + astToString(await openapiTS(document))
