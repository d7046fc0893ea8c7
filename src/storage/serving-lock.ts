import BetterSqlite3 from 'better-sqlite3';
import { AppError } from '../errors.ts';

/**
 * Which processes use a SQLite database, told by a lock file beside it (`<database>-serving.lock`,
 * a SQLite file of its own): every process that opens the database (a server, a command) holds a
 * shared lock on it until it closes it, and `appstore restore` takes it exclusively. The
 * operating system lets go of the locks when a process ends, however it ends (kill -9 included),
 * so a lock never outlives its holder.
 */
export function servingLockFile(databaseFile: string): string {
  return `${databaseFile}-serving.lock`;
}

export interface HeldLock {
  release(): void;
}

const busy = (error: unknown): boolean => (error as { code?: string }).code === 'SQLITE_BUSY';

/** A user's shared hold (database.ts, with every SQLite handle); refused while a restore holds the lock. */
export function holdWhileUsing(databaseFile: string): HeldLock {
  const lock = new BetterSqlite3(servingLockFile(databaseFile));
  try {
    // The first processes on a new database create the lock's table together: one waits for the
    // other's creation (it was refused at once and taken for a restore under way: two nodes or
    // two `appstore migrate` starting together failed about one time in five). Up to 5 s: on a
    // loaded machine, 1 s was once not enough. A restore under way makes a start wait as long.
    lock.pragma('busy_timeout = 5000');
    lock.exec('create table if not exists serving (held integer)');
    lock.pragma('busy_timeout = 0');
    lock.exec('begin');
    lock.prepare('select count(*) from serving').get();
  } catch (error) {
    lock.close();
    if (busy(error))
      throw new AppError(
        'conflict',
        `A restore of ${databaseFile} is under way (appstore restore): try again when it has finished.`,
      );
    throw error;
  }
  return { release: () => lock.close() };
}

/** The restore's exclusive hold: refused while any server runs on the database. */
export function holdExclusively(databaseFile: string): HeldLock {
  const lock = new BetterSqlite3(servingLockFile(databaseFile));
  try {
    lock.pragma('busy_timeout = 0');
    lock.exec('begin exclusive');
  } catch (error) {
    lock.close();
    if (busy(error))
      throw new AppError(
        'conflict',
        `A server is running on ${databaseFile}: stop it first (systemctl stop appstore, and let any appstore command finish), then run the restore again. Nothing was changed.`,
      );
    throw error;
  }
  return { release: () => lock.close() };
}
