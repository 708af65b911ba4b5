// Starts one PostgreSQL cluster for the whole run of the postgres project (test/**/*.pg.test.ts)
// and stops it at the end. PAYORCH_TEST_DATABASE_URL points the tests at a server you run instead.
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
