import { Clock, Config, Context, Effect, Layer } from "effect"

/**
 * The two timestamp styles of CONTRACT §2: *epoch* (milliseconds as a string) and *local* (ISO 8601
 * local date-time with milliseconds and no offset, in `APP_TIMEZONE`). Read from Effect's Clock so
 * tests can fix the time.
 */
export class ResponseTime extends Context.Service<
  ResponseTime,
  {
    readonly epoch: Effect.Effect<string>
    readonly local: Effect.Effect<string>
    readonly formatLocal: (epochMillis: number) => string
  }
>()("@payments-gaming/http/ResponseTime") {}

const pad = (value: number, width = 2) => String(value).padStart(width, "0")

export const makeLocalFormatter = (timeZone: string) => {
  // Throws a RangeError for an unknown zone, which start-up reports as a configuration error.
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit"
  })
  return (epochMillis: number): string => {
    const parts: Record<string, string> = {}
    for (const part of format.formatToParts(epochMillis)) parts[part.type] = part.value
    const millis = ((epochMillis % 1000) + 1000) % 1000
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${pad(millis, 3)}`
  }
}

export const layer = (timeZone: string) => {
  const formatLocal = makeLocalFormatter(timeZone)
  return Layer.succeed(
    ResponseTime,
    ResponseTime.of({
      epoch: Effect.map(Clock.currentTimeMillis, String),
      local: Effect.map(Clock.currentTimeMillis, formatLocal),
      formatLocal
    })
  )
}

/** `APP_TIMEZONE`: the zone of the local timestamps (UTC by default). */
export const timeZoneConfig = Config.String("APP_TIMEZONE").pipe(Config.withDefault("UTC"))

export const layerConfig = Layer.unwrap(Effect.map(timeZoneConfig, layer))
