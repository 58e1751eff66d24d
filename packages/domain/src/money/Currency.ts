import { Schema } from "effect"

/**
 * ISO 4217 codes the service handles. Each has a minor-unit exponent below: that exponent is what
 * makes "2500.00" NGN and "2500" JPY exact, because amounts are stored as integers of the minor unit.
 */
export const supportedCurrencies = [
  "NGN",
  "USD",
  "EUR",
  "GBP",
  "GHS",
  "KES",
  "ZAR",
  "EGP",
  "TZS",
  "CAD",
  "CHF",
  "CNY",
  "INR",
  "XOF",
  "XAF",
  "UGX",
  "RWF",
  "JPY",
  "KRW",
  "KWD",
  "BHD",
  "OMR",
  "JOD",
  "TND"
] as const

export type Currency = (typeof supportedCurrencies)[number]

const minorUnitScales: { readonly [C in Currency]: number } = {
  NGN: 2,
  USD: 2,
  EUR: 2,
  GBP: 2,
  GHS: 2,
  KES: 2,
  ZAR: 2,
  EGP: 2,
  TZS: 2,
  CAD: 2,
  CHF: 2,
  CNY: 2,
  INR: 2,
  XOF: 0,
  XAF: 0,
  UGX: 0,
  RWF: 0,
  JPY: 0,
  KRW: 0,
  KWD: 3,
  BHD: 3,
  OMR: 3,
  JOD: 3,
  TND: 3
}

/** A supported ISO 4217 currency code, upper case ("NGN"). */
export const Currency = Schema.Literals(supportedCurrencies).annotate({
  description: "ISO 4217 currency code"
})

export const isCurrency = (code: string): code is Currency => Object.hasOwn(minorUnitScales, code)

/** Number of decimals of the currency's minor unit (NGN 2, JPY 0, KWD 3). */
export const currencyScale = (currency: Currency): number => minorUnitScales[currency]
