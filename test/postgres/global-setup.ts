// Starts one PostgreSQL cluster for the whole run of the postgres project (test/**/*.pg.test.ts)
// and stops it at the end (test/postgres/cluster.ts). PAYORCH_TEST_DATABASE_URL points the tests at
// a server you run instead: a superuser's URL, since the tests create databases and end backends.
// Every test reaches PostgreSQL through the URL provided here (inject('postgresUrl')).
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const given = process.env['PAYORCH_TEST_DATABASE_URL'];
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    return undefined;
  }
  const cluster = await startCluster();
  project.provide('postgresUrl', cluster.url);
  return () => { cluster.stop(); };
}
