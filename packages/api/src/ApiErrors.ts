import { Schema } from "effect"
import { FieldIssue } from "./Envelope.ts"

/**
 * The error bodies of CONTRACT §2: the envelope with `success: false`, `data: null` and, for
 * validation failures, `errors`. The `timestamp` is left empty here and stamped, in the style of the
 * route, by the response middleware that also gives the same envelope to errors raised outside
 * handlers (unknown routes, oversized bodies, defects).
 */
const errorEnvelope = <Status extends number>(status: Status) => ({
  timestamp: Schema.String,
  status: Schema.Literal(status),
  success: Schema.Literal(false),
  message: Schema.String,
  data: Schema.Null,
  errors: Schema.optional(Schema.Array(FieldIssue))
})

export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(errorEnvelope(400), { httpApiStatus: 400 }) {}
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(errorEnvelope(401), {
  httpApiStatus: 401
}) {}
export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(errorEnvelope(403), { httpApiStatus: 403 }) {}
export class NotFound extends Schema.Error<NotFound>("NotFound")(errorEnvelope(404), { httpApiStatus: 404 }) {}
export class Conflict extends Schema.Error<Conflict>("Conflict")(errorEnvelope(409), { httpApiStatus: 409 }) {}
/** A body over the route's limit: 256 KiB for JSON, 10 MiB for a settlement report (CONTRACT §2, §7). */
export class PayloadTooLarge extends Schema.Error<PayloadTooLarge>("PayloadTooLarge")(errorEnvelope(413), {
  httpApiStatus: 413
}) {}
/** A body in a media type the route does not read. */
export class UnsupportedMediaType extends Schema.Error<UnsupportedMediaType>("UnsupportedMediaType")(
  errorEnvelope(415),
  { httpApiStatus: 415 }
) {}
export class ServiceUnavailable extends Schema.Error<ServiceUnavailable>("ServiceUnavailable")(errorEnvelope(503), {
  httpApiStatus: 503
}) {}

const fields = <Status extends number>(status: Status, message: string, errors?: ReadonlyArray<FieldIssue>) => ({
  timestamp: "",
  status,
  success: false as const,
  message,
  data: null,
  ...(errors === undefined ? {} : { errors })
})

export const badRequest = (message: string, errors?: ReadonlyArray<FieldIssue>) =>
  new BadRequest(fields(400, message, errors))
export const unauthorized = (message: string) => new Unauthorized(fields(401, message))
export const forbidden = (message: string) => new Forbidden(fields(403, message))
export const notFound = (message: string) => new NotFound(fields(404, message))
export const conflict = (message: string) => new Conflict(fields(409, message))
export const payloadTooLarge = (message: string) => new PayloadTooLarge(fields(413, message))
export const unsupportedMediaType = (message: string) => new UnsupportedMediaType(fields(415, message))
export const serviceUnavailable = (message: string) => new ServiceUnavailable(fields(503, message))
