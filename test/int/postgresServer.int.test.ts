// The real PostgreSQL server from the global setup hands out working, separate databases.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/databases.ts';

const query = async (url: string, sql: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
};

describe('test PostgreSQL server', () => {
  it('gives a fresh database that answers queries', async () => {
    const url = await freshDatabase();
    const [row] = await query(url, 'select version() as version');
    expect(row?.version).toContain('PostgreSQL');
  });

  it('gives a different database on every call', async () => {
    const [a, b] = await Promise.all([freshDatabase(), freshDatabase()]);
    expect(a).not.toBe(b);
    const [rowA] = await query(a, 'select current_database() as name');
    const [rowB] = await query(b, 'select current_database() as name');
    expect(rowA?.name).not.toBe(rowB?.name);
    expect(a.endsWith(`/${rowA?.name}`)).toBe(true);
  });
});
