import type { Database } from 'sqlite3';
import sqlite3 from 'sqlite3';
import type { DataSource } from 'typeorm';

/**
 * The sqlite3 module as TypeORM's sqlite driver is handed it (`driver` option). TypeORM 0.3's SqliteDriver calls
 * `verbose()` on whatever it loads (SqliteDriver.loadDependencies), and sqlite3's verbose mode wraps every Database
 * and Statement method so that each call captures a stack and util.inspect()s its arguments (sqlite3/lib/trace.js):
 * ~10% of the door's busy time under load. This hands TypeORM the same module with `verbose()` answering the module
 * unchanged, so the prototypes are never wrapped. Error messages keep SQLite's text (SQLITE_BUSY …); only the
 * "--> in Database#run(…)" stack suffix of verbose mode is missing.
 */
export const quietSqlite3: typeof sqlite3 = Object.assign(Object.create(sqlite3) as typeof sqlite3, { verbose: () => quietSqlite3 });

/** The sqlite3 database under a TypeORM sqlite DataSource: its one connection, for the store's prepared statements. */
export function sqliteDatabaseOf(dataSource: DataSource): Database {
  const driver = dataSource.driver as unknown as { databaseConnection?: Database };
  if (!driver.databaseConnection) throw new Error('the task store needs an initialized TypeORM sqlite (sqlite3) DataSource');
  return driver.databaseConnection;
}
