import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { fhirBundleOf } from '../../operations/fhir-export.js';
import { originOf, tenantOf } from '../auth.js';
import { findOr404 } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';

export const FHIR_JSON = 'application/fhir+json';

const fhirBundleSchema = z
  .looseObject({
    resourceType: z.literal('Bundle'),
    type: z.literal('collection'),
    identifier: z.object({ system: z.string(), value: z.string() }),
    timestamp: z.iso.datetime({ offset: true }),
    entry: z.array(
      z.object({
        fullUrl: z.string().meta({ description: 'urn:uuid:<id>, the same for the same result every time' }),
        resource: z.looseObject({
          resourceType: z.enum([
            'Patient',
            'Observation',
            'DiagnosticReport',
            'RiskAssessment',
            'OperationOutcome',
          ]),
          id: z.string(),
        }),
      }),
    ),
  })
  .meta({
    id: 'FhirBundle',
    description:
      'A FHIR R4 Bundle (http://hl7.org/fhir/R4/bundle.html). Every field and code is mapped in docs/fhir.md.',
  });

export const fhirPaths: ZodOpenApiPathsObject = {
  '/v1/results/{resultId}/fhir': {
    get: {
      operationId: 'getResultFhir',
      summary: 'The result as a FHIR R4 Bundle',
      description:
        'A collection Bundle: the subject as a Patient (identifier, gender, birth year only), each blood marker ' +
        'as a LOINC-coded Observation with its UCUM unit and reference range, the smoking status, weight, ' +
        'height and BMI as Observations, a DiagnosticReport of the panel, and each scored outcome as a ' +
        'RiskAssessment. Outcomes that could not be scored are listed in an OperationOutcome. The same ' +
        'result always gives the same document. Mapping and sources: docs/fhir.md.',
      tags: ['Partner'],
      requestParams: { path: z.object({ resultId: z.uuid() }) },
      responses: {
        '200': {
          description: 'The FHIR document',
          headers: successHeaders(true),
          content: { [FHIR_JSON]: { schema: fhirBundleSchema } },
        },
        ...errorResponses({ ...KEYED_OPERATION, codes: [...KEYED_OPERATION.codes, 'NOT_FOUND'] }),
      },
    },
  },
};

export async function fhirRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { resultId: string } }>(
    '/v1/results/:resultId/fhir',
    { config: { auth: true } },
    async (request, reply) => {
      const { results } = tenantOf(request);
      const source = await findOr404(
        request.params.resultId,
        (id) => results.exportSource(id, originOf(request)),
        'No result with this id in this account.',
      );
      return reply.type(FHIR_JSON).send(JSON.stringify(fhirBundleOf(source)));
    },
  );
}
