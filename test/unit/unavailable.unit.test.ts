// What counts as "the database cannot serve us now" (a 503 with Retry-After), and what does not.
import { describe, expect, it } from 'vitest';
import { BlobStoreUnavailable, RuleBroken } from '../../src/domain/errors.ts';
import { asUnavailable } from '../../src/http/unavailable.ts';
import { DatabaseTimeout } from '../../src/store/databaseLimits.ts';
import { isDatabaseUnavailable, unavailableReason } from '../../src/store/unavailable.ts';

const pgError = (code: string, message = 'from the server') =>
  Object.assign(new Error(message), { code });

describe('an unavailable database', () => {
  it.each([
    ['08006', 'connection failure'],
    ['08001', 'cannot connect'],
    ['53000', 'insufficient resources'],
    ['53100', 'disk full'],
    ['53200', 'out of memory'],
    ['53300', 'too many connections'],
    ['53400', 'configuration limit exceeded'],
    ['57P01', 'admin shutdown'],
    ['57P03', 'cannot connect now'],
    ['57014', 'statement timeout'],
    ['58030', 'I/O error'],
    ['55P03', 'lock not available'],
    ['25P03', 'idle in transaction session timeout'],
    ['25006', 'read-only transaction (a standby, a full disk)'],
    ['40001', 'serialization failure'],
    ['40P01', 'deadlock detected'],
  ])('SQLSTATE %s (%s) is unavailable', (code) => {
    expect(isDatabaseUnavailable(pgError(code))).toBe(true);
    expect(asUnavailable(pgError(code))?.status).toBe(503);
    expect(asUnavailable(pgError(code))?.headers['Retry-After']).toBe('5');
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error and is not queryable',
    'Query read timeout',
  ])('pg says "%s"', (message) => {
    expect(isDatabaseUnavailable(new Error(message))).toBe(true);
  });

  it('a database that takes no connections now counts (55000 with its words), not all of 55000', () => {
    expect(
      isDatabaseUnavailable(
        pgError('55000', 'database "flipbook" is not currently accepting connections'),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(pgError('55000', 'cannot do that now'))).toBe(false);
  });

  it('our own limit, the socket, and a cause wrapped by Emmett count', () => {
    expect(isDatabaseUnavailable(new DatabaseTimeout('no answer within 6 s'))).toBe(true);
    expect(isDatabaseUnavailable(pgError('ECONNREFUSED'))).toBe(true);
    // a name that does not resolve (yet: compose registers a container's name as it starts)
    expect(isDatabaseUnavailable(pgError('ENOTFOUND'))).toBe(true);
    const wrapped = Object.assign(new Error('append failed'), { cause: pgError('53300') });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
  });

  it('says why in words, for the lines a start prints while it waits', () => {
    expect(unavailableReason(pgError('ENOTFOUND'), 5000)).toBe('the name does not resolve');
    expect(unavailableReason(pgError('ECONNREFUSED'), 5000)).toBe(
      'the connection was refused (nothing listens on that port)',
    );
    expect(unavailableReason(new DatabaseTimeout('no answer within 6 s'), 5000)).toBe(
      'no answer within 5 s',
    );
    const timedOut = new Error('Connection terminated due to connection timeout', {
      cause: new Error('Connection terminated unexpectedly'),
    });
    expect(unavailableReason(timedOut, 2000)).toBe('no answer within 2 s');
    expect(unavailableReason(pgError('57P03'), 5000)).toBe('it is starting up');
    expect(unavailableReason(pgError('53300'), 5000)).toBe(
      'it has no free connection (too many clients)',
    );
    // what waiting cannot mend: a wrong password, a database that does not exist
    expect(unavailableReason(pgError('28P01'), 5000)).toBeNull();
    expect(unavailableReason(pgError('3D000'), 5000)).toBeNull();
  });

  it('a broken query, a broken rule or a constraint is no outage', () => {
    for (const code of ['23505', '42P01', '42601', '22P02', '55000', 'XX000']) {
      expect(isDatabaseUnavailable(pgError(code)), code).toBe(false);
    }
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(asUnavailable(new RuleBroken('Version limit reached'))).toBeNull();
  });

  it('an answer already given keeps its own words (the blob store is not the database)', () => {
    const blob = new BlobStoreUnavailable('head', pgError('ETIMEDOUT'));
    expect(asUnavailable(blob)).toBeNull();
    expect(isDatabaseUnavailable(blob)).toBe(false); // a worker defers it as a storage failure
  });
});
