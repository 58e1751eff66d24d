import { Schema, SchemaGetter, SchemaTransformation } from "effect"

/**
 * A table's row schema: its columns as the driver returns them (int8 a bigint, numeric a string,
 * timestamptz a Date, bytea a Uint8Array, under the column's own name), decoded into the domain's
 * model. Give it to `SqlSchema.findAll` / `findOneOption` as the `Result`.
 *
 * The columns are checked once; the model is built from checked values and not checked again (a
 * second struct check would double the cost of every row). Rows are only ever read, so encoding
 * is refused.
 */
export const rowSchema = <Columns extends Schema.Top, Model>(
  columns: Columns,
  toModel: (row: Columns["Type"]) => Model
) =>
  columns.pipe(
    Schema.decodeTo(
      Schema.declare((_: unknown): _ is Model => true),
      new SchemaTransformation.Transformation(SchemaGetter.transform(toModel), SchemaGetter.forbiddenEncoding)
    )
  )
