import type { Currency } from "./Currency.ts"

/**
 * Display symbols for the supported currencies. A symbol made of letters is followed by a space
 * ("KSh 50", "CHF 50") so the amount stays readable; a sign is written against it ("₦50", "$50").
 */
const symbols: { readonly [C in Currency]: string } = {
  NGN: "₦",
  USD: "$",
  EUR: "€",
  GBP: "£",
  GHS: "GH₵",
  KES: "KSh",
  ZAR: "R",
  EGP: "E£",
  TZS: "TSh",
  CAD: "CA$",
  CHF: "CHF",
  CNY: "CN¥",
  INR: "₹",
  XOF: "CFA",
  XAF: "FCFA",
  UGX: "USh",
  RWF: "FRw",
  JPY: "¥",
  KRW: "₩",
  KWD: "KD",
  BHD: "BD",
  OMR: "OMR",
  JOD: "JD",
  TND: "DT"
}

export const currencySymbol = (currency: Currency): string => symbols[currency]
