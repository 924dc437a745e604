import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './tables.ts';

// Undefined: a value Kysely leaves out, so the text it compiles has a shape of its own.
const plainParams = (params: readonly unknown[]): boolean =>
  params.every((p) => p !== undefined && (typeof p !== 'string' || !p.includes('\u0000')));

const sameParams = (a: readonly unknown[], b: readonly unknown[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * The SQL text of one statement of the hot paths (a command, a device report, a poll of a task),
 * kept per dialect: the statement is the same every time but for its values, and building and
 * compiling it through Kysely costs about as much as SQLite running it (docs/performance-notes.md,
 * issue 21). The text is Kysely's own, compiled with the first values, and kept only if the
 * parameters it bound are the ones the caller names, in the same order; so callers build the
 * parameters from the very objects they give the builder (`Object.values` of a row or of a SET),
 * and a statement whose shape varies (a list of values, an optional clause) is not one to keep.
 * A value a dialect's plugin would rewrite (U+0000 in a text, on PostgreSQL: postgres/nul-text.ts)
 * or one Kysely leaves out (undefined) goes through Kysely instead.
 */
export class KeptSql {
  // By the dialect's adapter: one process may hold a SQLite and a PostgreSQL store (the tests).
  private readonly texts = new WeakMap<object, string>();

  async run<R>(
    db: Kysely<Database>,
    params: readonly unknown[],
    query: () => Compilable<R>,
  ): Promise<QueryResult<R>> {
    const adapter = db.getExecutor().adapter;
    const kept = this.texts.get(adapter);
    const plain = plainParams(params);
    if (kept !== undefined && plain) return db.executeQuery(CompiledQuery.raw(kept, [...params]));
    const compiled = query().compile();
    if (plain && sameParams(compiled.parameters, params)) this.texts.set(adapter, compiled.sql);
    return db.executeQuery(compiled);
  }
}
