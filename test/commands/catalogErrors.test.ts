/**
 * Catalog failures say what to change (issue 17, item 1): the service, the URL and the variable, and
 * a rejected credential (401) told from a missing permission (403). The requester shared by the
 * Databricks and Google clients runs against a local HTTP server; the AWS mapping (Glue, DataZone)
 * is fed the SDK's error shapes.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { DATABRICKS_SERVICE } from '../../infra/catalogs/databricksClient.js';
import { toCatalogApiError, type AwsService } from '../../infra/catalogs/glueClient.js';
import { googleService } from '../../infra/catalogs/googleClient.js';
import { createJsonRequester } from '../../infra/catalogs/jsonRequester.js';
import { CatalogApiError } from '../../src/catalogs/provider.js';

/** The error a request rejects with. */
async function failure(promise: Promise<unknown>): Promise<CatalogApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CatalogApiError, String(error));
    return error;
  }
  assert.fail('the request did not fail');
}

describe('catalog requests that fail', () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((request, response) => {
      const status = Number(request.url!.split('/')[1]);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error_code: status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED', message: 'no' }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const requester = (service = DATABRICKS_SERVICE) =>
    createJsonRequester({
      token: () => 'token',
      parseErrorBody: (text) => {
        const body = JSON.parse(text) as { error_code: string; message: string };
        return { errorCode: body.error_code, message: body.message };
      },
      service,
      retryLogMessage: 'Test:Retrying',
      retryBaseDelayMs: 1,
    });

  it('a 401 says the token is wrong or expired and names its variable', async () => {
    const error = await failure(requester().request('lakehouse.tables.get', 'GET', `${base}/401/tables?x=1`));
    assert.match(error.message, /^lakehouse.tables.get: HTTP 401 UNAUTHENTICATED/);
    assert.ok(
      error.message.includes(`Databricks rejected the credentials at ${base}/401/tables (HTTP 401)`),
      error.message,
    );
    assert.match(error.message, /the token is wrong or expired; set LINEAGE_SVC_LAKEHOUSE_TOKEN$/);
  });

  it('a 403 says a permission is missing and names the variable, not that the token is wrong', async () => {
    const error = await failure(
      requester(googleService('warehouse.bigquery.tables.get')).request(
        'warehouse.bigquery.tables.get',
        'GET',
        `${base}/403/t`,
      ),
    );
    assert.ok(error.message.includes(`BigQuery refused the request at ${base}/403/t (HTTP 403)`), error.message);
    assert.match(error.message, /the account lacks an IAM permission .*LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN/);
    assert.ok(!error.message.includes('wrong or expired'));
  });

  it('an unreachable workspace names the URL and LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as { port: number }).port}/api/2.1/tables`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(requester().request('lakehouse.tables.get', 'GET', url));
    assert.equal(error.failure, 'retries_exhausted');
    assert.ok(error.message.includes(`Databricks is unreachable at ${url} (connection refused`), error.message);
    assert.match(error.message, /check LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL/);
  });
});

describe('AWS failures', () => {
  const glue: AwsService = {
    name: 'AWS Glue',
    endpoint: 'https://glue.eu-west-1.amazonaws.com',
    endpointVariable: 'AWS_ENDPOINT_URL_GLUE',
    regionVariable: 'LINEAGE_SVC_DATALAKE_REGION',
    permissions: 'glue:GetTable',
  };
  const sdkError = (name: string, status: number | undefined, code?: string) =>
    Object.assign(new Error('denied'), { name, code, $metadata: { httpStatusCode: status, attempts: 1 } });

  it('tells rejected credentials from a missing IAM permission, each naming what to set', () => {
    const rejected = toCatalogApiError(
      'datalake.GetTable',
      'db/t',
      sdkError('UnrecognizedClientException', 400),
      4,
      glue,
    );
    assert.match(rejected.message, /AWS Glue rejected the credentials at https:\/\/glue.eu-west-1.amazonaws.com/);
    assert.match(rejected.message, /wrong or expired; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    const denied = toCatalogApiError('datalake.GetTable', 'db/t', sdkError('AccessDeniedException', 400), 4, glue);
    assert.match(
      denied.message,
      /AWS Glue refused the request .* the principal lacks an IAM permission .*glue:GetTable/,
    );
    assert.ok(!denied.message.includes('wrong or expired'));
    const unreachable = toCatalogApiError(
      'datalake.GetTable',
      'db/t',
      sdkError('Error', undefined, 'ECONNREFUSED'),
      4,
      glue,
    );
    assert.match(unreachable.message, /AWS Glue is unreachable at .*check AWS_ENDPOINT_URL_GLUE/);
  });
});
