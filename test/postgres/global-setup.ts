// Starts one PostgreSQL cluster for the whole run of the postgres project (test/**/*.pg.test.ts)
// and stops it at the end (test/postgres/cluster.ts). PAYORCH_TEST_DATABASE_URL points the tests at
// a server you run instead (a superuser's URL, since the tests create databases and end backends):
// each run gets a database of its own there, dropped at the end, so that nothing an earlier run
// left (pg-boss's jobs, the inbox tables) changes what a test reads. Every test reaches PostgreSQL
// through the URL provided here (inject('postgresUrl')).
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

async function onServer(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void> | void> {
  const given = process.env['PAYORCH_TEST_DATABASE_URL'];
  if (given !== undefined && given !== '') {
    const database = `payorch_test_${String(process.pid)}_${String(Date.now())}`;
    await onServer(given, `CREATE DATABASE ${database}`);
    const url = new URL(given);
    url.pathname = `/${database}`;
    project.provide('postgresUrl', url.href);
    // FORCE ends what a failed test left connected (PostgreSQL 13 and later).
    return () => onServer(given, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
  const cluster = await startCluster();
  project.provide('postgresUrl', cluster.url);
  return () => { cluster.stop(); };
}
