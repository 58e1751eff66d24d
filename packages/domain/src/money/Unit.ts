import { Schema } from "effect"
import { Currency, currencyScale } from "./Currency.ts"

/** Wheel coins: a unit of account of their own, never convertible to or summed with cash. */
export const COIN = "COIN" as const
export type Coin = typeof COIN

/** What a ledger account holds: one currency, or coins. */
export const Unit = Schema.Union([Currency, Schema.Literal(COIN)])
export type Unit = typeof Unit.Type

export const isCoin = (unit: Unit): unit is Coin => unit === COIN

/** Decimals of the unit's smallest indivisible amount; coins are whole. */
export const unitScale = (unit: Unit): number => (unit === COIN ? 0 : currencyScale(unit))
