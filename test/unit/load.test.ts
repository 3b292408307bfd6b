/**
 * The registry and the schemas load: imported inside a test, so that a fault in what they run at
 * load fails a test (Stryker's vitest runner counts a file that fails to load as no test at all).
 */
import { expect, it } from 'vitest';

it('loads the registry, the response schemas and the operations', async () => {
  const { RESOURCE_LIST } = await import('../../shared/model/resources.ts');
  const { responseSchemas } = await import('../../shared/api/object-schemas.ts');
  const { contractOf } = await import('../../shared/api/operations.ts');
  const { SCHEMAS } = await import('../../shared/model/schemas.ts');
  const { ROUTES } = await import('../../shared/api/routes.ts');
  expect(RESOURCE_LIST.length).toBe(8);
  // Each resource's object and list (none for the singleton business profile), the summaries', a run's results', the event's, DeleteResult and Error.
  expect(Object.keys(responseSchemas()).length).toBe(8 * 2 - 1 + 2 + 2 + 2 + 2);
  const { eventFeedSchemas } = await import('../../shared/api/event-schemas.ts');
  const { timeSummarySchemas } = await import('../../shared/api/time-summary-schemas.ts');
  const { billingRunResultSchemas } = await import('../../shared/api/billing-run-result-schemas.ts');
  for (const route of ROUTES) {
    const schemas = route.resource === null ? undefined : route.resource === 'event' ? eventFeedSchemas : route.resource === 'time_summary' ? timeSummarySchemas : route.resource === 'billing_run_result' ? billingRunResultSchemas : SCHEMAS[route.resource];
    expect(route.resource === null || contractOf(route, schemas) !== undefined).toBe(true);
  }
});
