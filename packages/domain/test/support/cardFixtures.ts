/** The keys of a card in the API's answers, in the contract's order. */
export const CARD_KEYS = [
  "cardId",
  "cardholderName",
  "brand",
  "last4",
  "maskedNumber",
  "expiryMonth",
  "expiryYear",
  "createdAt"
]
