import { z } from 'zod';
import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { JwtCustomizer } from '../../lib/jwt-customizer/index.ts';
import { errors } from '../../lib/errors.ts';
import { jsonObject, withoutNul } from '../../lib/http/schemas.ts';
import { withoutReserved } from '../../lib/jwt-customizer/claims.ts';
import { assertScriptCompiles } from '../../lib/jwt-customizer/config.ts';

const tag = 'Custom JWT claims';
const PATH = '/configs/jwt-customizer/access-token';
const script = z
  .string()
  .min(1)
  .max(64 * 1024);
/** What PUT and PATCH store: `''` too, Logto's console's first save, which customizes nothing. */
const storedScript = z
  .string()
  .max(64 * 1024)
  .describe("The script; an empty one (as Logto's console saves first) customizes no token");
const environmentVariables = z
  .record(withoutNul(z.string().max(256)), z.string().max(4096))
  .refine((value) => Object.keys(value).length <= 100, 'at most 100 variables');

const config = z.object({
  script: z.string(),
  environmentVariables: z.record(z.string(), z.string()),
  blockIssuanceOnError: z.boolean(),
  tokenSample: z.record(z.string(), z.unknown()).optional(),
  contextSample: z.record(z.string(), z.unknown()).optional(),
  updatedAt: z.number(),
});

const putBody = z
  .object({
    script: storedScript,
    environmentVariables: environmentVariables.optional(),
    blockIssuanceOnError: z.boolean().optional(),
    tokenSample: jsonObject.optional().describe('Token the test endpoint uses when its request has none'),
    contextSample: jsonObject.optional().describe('Context the test endpoint uses when its request has none'),
  })
  .strict();

const patchBody = putBody.partial().strict();

const testBody = z
  .object({
    tokenType: z
      .enum(['access-token', 'client-credentials'])
      .optional()
      .describe("Logto's token type; one customizer serves both here, so the same script runs"),
    script,
    environmentVariables: environmentVariables.optional(),
    token: z.record(z.string(), z.unknown()).optional().describe('Default: the stored tokenSample, else {}'),
    context: z.record(z.string(), z.unknown()).optional().describe('Default: the stored contextSample, else {}'),
  })
  .strict();

export function jwtCustomizerRoutes(api: ApiRouterDeps, { jwtCustomizer }: { jwtCustomizer: JwtCustomizer }): void {
  const { configs, testRunner } = jwtCustomizer;

  async function mustGet() {
    const current = await configs.get();
    if (!current) throw errors.notFound('jwt customizer', 'jwt.accessToken');
    return current;
  }

  declare(api, {
    method: 'get',
    path: PATH,
    tag,
    summary: 'Get the access-token customizer script',
    response: config,
    handler: mustGet,
  });

  declare(api, {
    method: 'get',
    path: '/configs/jwt-customizer',
    tag,
    summary: "List the stored customizers as Logto does: [{ key: 'jwt.accessToken', value }], or [] when none",
    response: z.array(z.object({ key: z.literal('jwt.accessToken'), value: config })),
    async handler() {
      const current = await configs.get();
      return current ? [{ key: 'jwt.accessToken' as const, value: current }] : [];
    },
  });

  declare(api, {
    method: 'put',
    path: PATH,
    tag,
    summary: 'Store the access-token customizer script (201 the first time, 200 when it replaces one)',
    body: putBody,
    response: config,
    alternativeStatus: 201,
    alternativeWithBody: true,
    async handler({ body, answer }) {
      if (body.script.trim()) await assertScriptCompiles(testRunner(), body.script);
      // Logto answers 201 when the PUT created the customizer, 200 when it replaced one.
      if (!(await configs.get())) answer(201);
      return configs.put({
        script: body.script,
        environmentVariables: body.environmentVariables ?? {},
        blockIssuanceOnError: body.blockIssuanceOnError ?? false,
        tokenSample: body.tokenSample,
        contextSample: body.contextSample,
      });
    },
  });

  declare(api, {
    method: 'patch',
    path: PATH,
    tag,
    summary: 'Update the access-token customizer script',
    body: patchBody,
    response: config,
    async handler({ body }) {
      const current = await mustGet();
      if (body.script?.trim()) await assertScriptCompiles(testRunner(), body.script);
      return configs.put({
        script: body.script ?? current.script,
        environmentVariables: body.environmentVariables ?? current.environmentVariables,
        blockIssuanceOnError: body.blockIssuanceOnError ?? current.blockIssuanceOnError,
        tokenSample: body.tokenSample ?? current.tokenSample,
        contextSample: body.contextSample ?? current.contextSample,
      });
    },
  });

  declare(api, {
    method: 'delete',
    path: PATH,
    tag,
    summary: 'Remove the access-token customizer script',
    status: 204,
    async handler() {
      // Logto answers a deletion of nothing with entity.not_found (a read with entity.not_exists_with_id).
      if (!(await configs.delete())) throw errors.missing('entity.not_found', 'jwt customizer', 'jwt.accessToken');
    },
  });

  declare(api, {
    method: 'post',
    path: '/configs/jwt-customizer/test',
    tag,
    summary:
      'Run a script in the sandbox on a sample token and context (the stored samples when omitted), ' +
      'and return the claims it adds',
    body: testBody,
    response: z.record(z.string(), z.unknown()),
    async handler({ body }) {
      const samples = body.token && body.context ? undefined : await configs.get();
      const outcome = await testRunner().run(body.script, {
        token: body.token ?? samples?.tokenSample ?? {},
        context: body.context ?? samples?.contextSample ?? {},
        environmentVariables: body.environmentVariables ?? {},
      });
      if (outcome.kind === 'claims') return withoutReserved(outcome.claims);
      if (outcome.kind === 'denied') {
        throw errors.refused('jwt_customizer.access_denied', outcome.message);
      }
      throw errors.unprocessable('jwt_customizer.script_error', outcome.message, { reason: outcome.code });
    },
  });
}
