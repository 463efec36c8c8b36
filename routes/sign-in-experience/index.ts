import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { signInExperience, signInExperiencePatch } from '../../lib/sign-in-experience/schema.ts';

const tag = 'Sign-in experience';

export function signInExperienceRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'signInExperience'>): void {
  const library = core.signInExperience;

  declare(api, {
    method: 'get',
    path: '/sign-in-exp',
    tag,
    summary: 'Get the sign-in experience (defaults until first changed)',
    response: signInExperience,
    handler: () => library.get(),
  });

  declare(api, {
    method: 'patch',
    path: '/sign-in-exp',
    tag,
    summary:
      'Update the sign-in experience: each field given replaces the stored one; unsupported Logto settings ' +
      'and inconsistent combinations are refused with 422 and their code',
    body: signInExperiencePatch,
    response: signInExperience,
    handler: ({ body }) => library.update(body),
  });
}
