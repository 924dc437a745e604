/**
 * better-sqlite3 for the Node that runs us: version 13 on Node 22 and later, version 12 on Node 20.
 *
 * 12 is built on `node::ObjectWrap`, and from Node 24.19 on that class's header registers an
 * environment cleanup hook per object and removes it in the destructor, which aborts the process
 * (`Assertion failed: (env) != nullptr`) when V8 collects a Database or Statement in a GC run
 * outside JavaScript, such as the memory reducer's after an idle spell (nodejs/node#65446). Built
 * against those headers, as it is wherever no prebuilt binary can be fetched, 12 takes the server
 * down on 24. 13 is on Node-API, ships its prebuilt binaries in the npm package, and declares Node
 * >=22; on Node 20 it crashes. So both are installed (13 as the alias `better-sqlite3-13`) and the
 * one that works here is loaded; the other is never loaded. When Node 20 leaves our range
 * (README.md, Node versions), 12 goes and this file with it.
 */
import { createRequire } from 'node:module';
import type Sqlite from 'better-sqlite3';

/** The package loaded on this Node: its name in package.json. */
export const BETTER_SQLITE3_PACKAGE =
  Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';

/** better-sqlite3's `Database` class: the two versions' APIs are the same for what we use. */
export const BetterSqlite3: typeof Sqlite = createRequire(import.meta.url)(BETTER_SQLITE3_PACKAGE);

/** An open SQLite connection. */
export type SqliteConnection = Sqlite.Database;

/** A prepared statement. */
export type SqliteStatement = Sqlite.Statement;
