// The run's template database: this code's schema made once on the run's PostgreSQL server, so a
// test's fresh database can be a copy of it (databases.ts's migratedDatabase) rather than migrated
// again by every app and daemon that starts on one.
import pg from 'pg';
import { openStore } from '../../src/store/store.ts';

export const schemaTemplate = async (serverUrl: string): Promise<string> => {
  const name = 'flipbook_schema';
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  // Made and left: no connection may stay open on a template while it is copied.
  const store = await openStore({ databaseUrl: url.toString() });
  await store.close();
  return name;
};
