/** The TypeScript declarations of `document` (an OpenAPI 3 object), as `openapi-typescript` writes them. */
export declare const generateTypes: (document: object) => Promise<string>
