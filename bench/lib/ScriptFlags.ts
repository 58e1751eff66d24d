// The command line of the standalone bench scripts (ledger-verify, ledger-posting, reconcile-import,
// reconcile-report): `--name value` flags and bare switches, read from process.argv.

export const args = process.argv.slice(2)

/** The value after `--name`, or undefined when the flag is absent. */
export const flag = (name: string) => {
  const index = args.indexOf(name)
  return index === -1 ? undefined : args[index + 1]
}

/** Whether the bare switch `--name` is given. */
export const has = (name: string) => args.includes(name)

/** `--name` as a positive integer, `fallback` when absent; throws naming the flag otherwise. */
export const positive = (name: string, fallback: number) => {
  const value = Number(flag(name) ?? fallback)
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name}: a positive integer`)
  return value
}
