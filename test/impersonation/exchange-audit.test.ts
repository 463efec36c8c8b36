import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';
import type { CustomizerInput } from '../../lib/jwt-customizer/claims.ts';
import type { ImpersonationRecord } from '../../lib/impersonation/record.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const INDICATOR = 'https://audit.example.com';

function denyWhenAsked({ context, api }: CustomizerInput) {
  const grant = context.grant as { subjectTokenContext?: { deny?: boolean } };
  if (grant.subjectTokenContext?.deny) api.denyAccess('refused by the ticket policy');
  return {};
}

describe('audit of refused token exchanges', () => {
  let running: RunningService;
  let app: { id: string; secret?: string };

  async function logs(query: string): Promise<ImpersonationRecord[]> {
    const res = await running.request(`/api/impersonation-logs?${query}`);
    expect(res.status).to.equal(200);
    return (await res.json()) as ImpersonationRecord[];
  }

  before(async () => {
    running = await startService({ jwtCustomizer: { getCustomJwtClaims: denyWhenAsked } });
    await createResource(running, INDICATOR, ['read']);
    app = await createApplication(running, { type: 'Traditional', customClientMetadata: { allowTokenExchange: true } });
  });
  after(() => running.close());

  it('records each refusal with its OAuth error, and the token stays usable', async () => {
    const user = await createUser(running);
    const token = await subjectToken(running, user.id);
    const unknownTarget = await tokenRequest(
      running,
      {
        grant_type: GRANT,
        subject_token: token,
        subject_token_type: AT,
        resource: 'https://nowhere.example.com',
        scope: 'read',
      },
      app,
    );
    expect(unknownTarget.body.error).to.equal('invalid_target');
    const management = await tokenRequest(
      running,
      {
        grant_type: GRANT,
        subject_token: token,
        subject_token_type: AT,
        resource: `${running.baseUrl}/api`,
      },
      app,
    );
    expect(management.body.error).to.equal('invalid_target');
    const succeeded = await tokenRequest(
      running,
      { grant_type: GRANT, subject_token: token, subject_token_type: AT, resource: INDICATOR },
      app,
    );
    expect(succeeded.status).to.equal(200);
    const replay = await tokenRequest(
      running,
      { grant_type: GRANT, subject_token: token, subject_token_type: AT, resource: INDICATOR },
      app,
    );
    expect(replay.body.error).to.equal('invalid_request');

    // Records of one millisecond have no defined order, so each is picked by what it says.
    const records = await logs(`userId=${user.id}`);
    expect(records.map((record) => record.type)).to.have.members([
      'TokenExchange.Succeeded',
      'TokenExchange.Failed',
      'TokenExchange.Failed',
      'SubjectToken.Created',
    ]);
    const created = records.find((record) => record.type === 'SubjectToken.Created');
    const failures = records.filter((record) => record.type === 'TokenExchange.Failed');
    const first = failures.find((record) => record.resource !== `${running.baseUrl}/api`);
    const second = failures.find((record) => record.resource === `${running.baseUrl}/api`);
    expect(first).to.deep.include({
      subjectTokenRef: created!.subjectTokenRef,
      userId: user.id,
      createdBy: 'test-admin',
      applicationId: app.id,
      resource: 'https://nowhere.example.com',
      scope: 'read',
      error: 'invalid_target',
      errorDescription: 'resource indicator https://nowhere.example.com is not registered',
    });
    expect(second).to.deep.include({
      error: 'invalid_target',
      errorDescription: 'the management API cannot be a token-exchange target',
    });
    expect(created).to.deep.include({ error: null, errorDescription: null });

    // The replay found the token spent: it names no user any more, but keeps the token's reference.
    const byRef = await logs(`subjectTokenRef=${created!.subjectTokenRef}`);
    expect(byRef).to.have.length(5);
    expect(byRef.find((record) => record.userId === null)).to.deep.include({
      type: 'TokenExchange.Failed',
      userId: null,
      createdBy: null,
      error: 'invalid_request',
      errorDescription: 'subject_token is invalid, expired or already used',
    });
    expect(JSON.stringify(byRef)).not.to.include(token);
  });

  it('records an application that may not exchange, a customizer denial, and requests without a usable subject token', async () => {
    const user = await createUser(running);
    const disabled = await createApplication(running, { type: 'Traditional' });
    const token = await subjectToken(running, user.id, { deny: true });
    expect(
      (await tokenRequest(running, { grant_type: GRANT, subject_token: token, subject_token_type: AT }, disabled)).body
        .error,
    ).to.equal('unauthorized_client');
    expect(
      (
        await tokenRequest(
          running,
          { grant_type: GRANT, subject_token: token, subject_token_type: AT, resource: INDICATOR },
          app,
        )
      ).body.error,
    ).to.equal('access_denied');
    expect((await logs(`applicationId=${disabled.id}`))[0]).to.deep.include({
      type: 'TokenExchange.Failed',
      userId: user.id,
      error: 'unauthorized_client',
      errorDescription: 'token exchange is not allowed for this application',
    });
    expect((await logs(`userId=${user.id}&applicationId=${app.id}`))[0]).to.deep.include({
      type: 'TokenExchange.Failed',
      applicationId: app.id,
      resource: INDICATOR,
      error: 'access_denied',
      errorDescription: 'refused by the ticket policy',
    });

    const other = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    await tokenRequest(
      running,
      { grant_type: GRANT, subject_token: 'sub_tk_never-issued', subject_token_type: AT },
      other,
    );
    await tokenRequest(running, { grant_type: GRANT, subject_token_type: AT }, other);
    const attempts = await logs(`applicationId=${other.id}`);
    expect(attempts).to.have.length(2);
    const unknown = attempts.find((record) => record.subjectTokenRef !== null);
    const missing = attempts.find((record) => record.subjectTokenRef === null);
    expect(unknown).to.deep.include({ type: 'TokenExchange.Failed', userId: null, error: 'invalid_request' });
    expect(unknown!.subjectTokenRef).to.be.a('string');
    expect(missing).to.deep.include({
      subjectTokenRef: null,
      userId: null,
      error: 'invalid_request',
      errorDescription: "missing required parameter 'subject_token'",
    });
  });

  it('records nothing for a client that failed to authenticate', async () => {
    const user = await createUser(running);
    const token = await subjectToken(running, user.id);
    const res = await tokenRequest(
      running,
      { grant_type: GRANT, subject_token: token, subject_token_type: AT },
      { id: app.id, secret: 'wrong' },
    );
    expect(res.body.error).to.equal('invalid_client');
    expect((await logs(`userId=${user.id}`)).map((record) => record.type)).to.deep.equal(['SubjectToken.Created']);
  });
});
