import { Cause, Logger } from "effect"

/**
 * The server's log during a fuzz run, kept quiet: thousands of access-log lines would bury the
 * report. Error entries are kept, because a failure caught and logged as "Unhandled" is a finding
 * even when the client got a clean 4xx.
 */
export const loggedErrors: Array<string> = []

const capture = Logger.make<unknown, void>(({ logLevel, message, cause }) => {
  if (logLevel !== "Error" && logLevel !== "Fatal") return
  const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
  loggedErrors.push(`${text} ${Cause.pretty(cause)}`.slice(0, 2_000))
})

export const ErrorLog = Logger.layer([capture])
