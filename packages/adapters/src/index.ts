// Adapters are imported by module path (`@payments-gaming/adapters/postgres/PostgresClient`), so an
// app pulls in only the SDKs it uses.
export {}
