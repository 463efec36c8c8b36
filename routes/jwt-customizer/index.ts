import { z } from 'zod';
import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { errors } from '../../lib/errors.ts';
import { withoutReserved } from '../../lib/jwt-customizer/claims.ts';

const tag = 'Custom JWT claims';
const PATH = '/configs/jwt-customizer/access-token';
const script = z.string().min(1).max(64 * 1024);
const environmentVariables = z.record(z.string().max(256), z.string().max(4096))
  .refine((value) => Object.keys(value).length <= 100, 'at most 100 variables');

const config = z.object({
  script: z.string(),
  environmentVariables: z.record(z.string(), z.string()),
  blockIssuanceOnError: z.boolean(),
  updatedAt: z.number(),
});

const putBody = z.object({
  script,
  environmentVariables: environmentVariables.optional(),
  blockIssuanceOnError: z.boolean().optional(),
  // Accepted for Logto compatibility; samples are only used by the test endpoint.
  tokenSample: z.record(z.string(), z.unknown()).optional(),
  contextSample: z.record(z.string(), z.unknown()).optional(),
}).strict();

const patchBody = putBody.partial().strict();

const testBody = z.object({
  script,
  environmentVariables: environmentVariables.optional(),
  token: z.record(z.string(), z.unknown()).default({}),
  context: z.record(z.string(), z.unknown()).default({}),
}).strict();

export function jwtCustomizerRoutes(api: ApiRouterDeps, core: ServiceCore): void {
  const deps = core.customizer;
  const { configs } = deps;

  async function mustGet() {
    const current = await configs.get();
    if (!current) throw errors.notFound('jwt customizer');
    return current;
  }

  declare(api, {
    method: 'get', path: PATH, tag, summary: 'Get the access-token customizer script',
    response: config, handler: mustGet,
  });

  declare(api, {
    method: 'put', path: PATH, tag, summary: 'Store the access-token customizer script',
    body: putBody, response: config,
    handler: ({ body }) => configs.put({
      script: body.script,
      environmentVariables: body.environmentVariables ?? {},
      blockIssuanceOnError: body.blockIssuanceOnError ?? false,
    }),
  });

  declare(api, {
    method: 'patch', path: PATH, tag, summary: 'Update the access-token customizer script',
    body: patchBody, response: config,
    async handler({ body }) {
      const current = await mustGet();
      return configs.put({
        script: body.script ?? current.script,
        environmentVariables: body.environmentVariables ?? current.environmentVariables,
        blockIssuanceOnError: body.blockIssuanceOnError ?? current.blockIssuanceOnError,
      });
    },
  });

  declare(api, {
    method: 'delete', path: PATH, tag, summary: 'Remove the access-token customizer script', status: 204,
    async handler() {
      if (!(await configs.delete())) throw errors.notFound('jwt customizer');
    },
  });

  declare(api, {
    method: 'post', path: '/configs/jwt-customizer/test', tag,
    summary: 'Run a script on a sample token and context, in the sandbox, and return the claims it adds',
    body: testBody, response: z.record(z.string(), z.unknown()),
    async handler({ body }) {
      const outcome = await deps.runner().run(body.script, {
        token: body.token, context: body.context, environmentVariables: body.environmentVariables ?? {},
      });
      if (outcome.kind === 'claims') return withoutReserved(outcome.claims);
      if (outcome.kind === 'denied') {
        throw errors.unprocessable('jwt_customizer.access_denied', outcome.message);
      }
      throw errors.unprocessable('jwt_customizer.script_error', outcome.message, { reason: outcome.code });
    },
  });
}
