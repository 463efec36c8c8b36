/** Application rules the OIDC client depends on: redirect URIs, CORS origins, token exchange, client metadata. */
import { expect } from 'chai';
import {
  originProblem,
  redirectUriProblem,
  toClientMetadata,
  tokenExchangeAllowed,
} from '../../../lib/applications/clients.ts';
import { TOKEN_EXCHANGE_GRANT } from '../../../lib/impersonation/grant.ts';
import type { Application } from '../../../lib/applications/repository.ts';
import type { ApplicationType } from '../../../lib/applications/types.ts';

function application(
  type: ApplicationType,
  fields: Partial<Application> = {},
): Application & { secretDigest: string | null } {
  return {
    id: 'app1',
    name: 'App',
    description: null,
    type,
    isThirdParty: false,
    createdAt: 1,
    oidcClientMetadata: { redirectUris: [], postLogoutRedirectUris: [] },
    customClientMetadata: {},
    secretDigest: 'digest-of-secret',
    ...fields,
  };
}
const withRedirects = (redirectUris: string[], postLogoutRedirectUris: string[] = []) => ({
  oidcClientMetadata: { redirectUris, postLogoutRedirectUris },
});

describe('application clients (library)', () => {
  describe('redirectUriProblem', () => {
    const accepted: Array<[ApplicationType, string]> = [
      ['Traditional', 'https://app.example.com/callback'],
      ['Traditional', 'http://app.example.com/callback?from=login'],
      ['SPA', 'http://localhost:5173/'],
      ['Native', 'com.example.app:/oauth/callback'],
      ['Native', 'http://localhost:8080/cb'],
      ['Native', 'http://127.0.0.1/cb'],
      ['Native', 'http://[::1]:9000/cb'],
      ['Native', 'https://app.example.com/universal-link'],
    ];
    for (const [type, uri] of accepted) {
      it(`accepts ${uri} for ${type}`, () => expect(redirectUriProblem(type, uri)).to.equal(undefined));
    }

    const refused: Array<[ApplicationType, string, RegExp]> = [
      ['Traditional', '/callback', /absolute/],
      ['SPA', 'app.example.com/callback', /absolute|http or https/],
      ['Traditional', 'https://app.example.com/cb#section', /fragment/],
      ['Native', 'com.example.app:/cb#', /fragment/],
      ['SPA', 'com.example.app:/oauth/callback', /http or https/],
      ['MachineToMachine', 'ftp://files.example.com/', /http or https/],
      ['Native', 'http://app.example.com/cb', /loopback/],
      ['Native', 'https://localhost/cb', /loopback/],
      ['Native', 'https://127.0.0.1/cb', /loopback/],
      ['Native', 'javascript:alert(1)', /javascript scheme/],
      ['Native', 'VBScript:msgbox', /vbscript scheme/],
      ['Native', 'data:text/html,hi', /data scheme/],
      ['Native', 'blob:https://app.example.com/1', /blob scheme/],
      ['Native', 'file:///etc/passwd', /file scheme/],
      ['Native', 'about:blank', /about scheme/],
    ];
    for (const [type, uri, why] of refused) {
      it(`refuses ${uri} for ${type}`, () => expect(redirectUriProblem(type, uri)).to.match(why));
    }
  });

  describe('originProblem', () => {
    for (const origin of ['https://app.example.com', 'http://localhost:3000', 'https://app.example.com:8443']) {
      it(`accepts ${origin}`, () => expect(originProblem(origin)).to.equal(undefined));
    }
    const refused: Array<[string, RegExp]> = [
      ['https://app.example.com/', /origin \(scheme/],
      ['https://app.example.com/path', /without path/],
      ['https://App.Example.com', /lower-case/],
      ['https://app.example.com:443', /default port omitted/],
      ['https://app.example.com?x=1', /without path, query/],
      ['ftp://files.example.com', /http or https/],
      ['app.example.com', /http or https/],
      ['', /http or https/],
    ];
    for (const [origin, why] of refused) {
      it(`refuses ${JSON.stringify(origin)}`, () => expect(originProblem(origin)).to.match(why));
    }
    it('names the origin the value should have been', () => {
      expect(originProblem('HTTPS://App.Example.com:443/')).to.include('e.g. https://app.example.com');
    });
  });

  describe('tokenExchangeAllowed', () => {
    it('is off until the application enables it', () => {
      expect(tokenExchangeAllowed(application('Traditional'))).to.equal(false);
      expect(
        tokenExchangeAllowed(application('Traditional', { customClientMetadata: { allowTokenExchange: false } })),
      ).to.equal(false);
      expect(tokenExchangeAllowed(application('SPA', { customClientMetadata: { allowTokenExchange: true } }))).to.equal(
        true,
      );
    });
    it('is never on for a third-party application', () => {
      const thirdParty = application('Traditional', {
        isThirdParty: true,
        customClientMetadata: { allowTokenExchange: true },
      });
      expect(tokenExchangeAllowed(thirdParty)).to.equal(false);
    });
  });

  describe('toClientMetadata', () => {
    it('makes a machine-to-machine application a confidential client-credentials client', () => {
      expect(
        toClientMetadata(application('MachineToMachine', withRedirects(['https://ignored.example.com/cb']))),
      ).to.deep.equal({
        client_id: 'app1',
        client_name: 'App',
        application_type: 'web',
        grant_types: ['client_credentials', TOKEN_EXCHANGE_GRANT],
        response_types: [],
        redirect_uris: [],
        post_logout_redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        client_secret: 'digest-of-secret',
      });
    });

    it('gives a traditional application with a redirect URI the authorization code flow', () => {
      const metadata = toClientMetadata(
        application('Traditional', withRedirects(['https://app.example.com/cb'], ['https://app.example.com/bye'])),
      );
      expect(metadata).to.include({
        token_endpoint_auth_method: 'client_secret_basic',
        client_secret: 'digest-of-secret',
      });
      expect(metadata.grant_types).to.deep.equal(['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT]);
      expect(metadata.response_types).to.deep.equal(['code']);
      expect(metadata.redirect_uris).to.deep.equal(['https://app.example.com/cb']);
      expect(metadata.post_logout_redirect_uris).to.deep.equal(['https://app.example.com/bye']);
    });

    it('makes SPA and native applications public clients that carry no secret', () => {
      for (const type of ['SPA', 'Native'] as const) {
        const metadata = toClientMetadata(application(type, withRedirects(['http://localhost:3000/cb'])));
        expect(metadata, type).to.include({ token_endpoint_auth_method: 'none' });
        expect(metadata, type).to.not.have.property('client_secret');
        expect(metadata.application_type, type).to.equal(type === 'Native' ? 'native' : 'web');
      }
    });

    it('leaves a confidential application without a secret digest without client_secret', () => {
      expect(toClientMetadata({ ...application('Traditional'), secretDigest: null })).to.not.have.property(
        'client_secret',
      );
    });

    it('keeps an interactive application without redirect URIs to token exchange only', () => {
      const metadata = toClientMetadata(application('Traditional', withRedirects([], ['https://app.example.com/bye'])));
      expect(metadata).to.deep.include({
        grant_types: [TOKEN_EXCHANGE_GRANT],
        response_types: [],
        redirect_uris: [],
        post_logout_redirect_uris: [],
      });
    });

    it('leaves out stored URIs the provider would refuse, rather than invalidating the client', () => {
      const metadata = toClientMetadata(
        application(
          'SPA',
          withRedirects(
            ['https://app.example.com/cb', 'https://app.example.com/cb#old', 'myapp://cb'],
            ['javascript:alert(1)', 'https://app.example.com/bye'],
          ),
        ),
      );
      expect(metadata.redirect_uris).to.deep.equal(['https://app.example.com/cb']);
      expect(metadata.post_logout_redirect_uris).to.deep.equal(['https://app.example.com/bye']);

      const onlyRefused = toClientMetadata(application('SPA', withRedirects(['myapp://cb'])));
      expect(onlyRefused.grant_types, 'no valid redirect URI, no code flow').to.deep.equal([TOKEN_EXCHANGE_GRANT]);
    });

    it('carries the token settings the provider acts on, and only those that are set', () => {
      const metadata = toClientMetadata(
        application('Traditional', {
          ...withRedirects(['https://app.example.com/cb']),
          customClientMetadata: {
            corsAllowedOrigins: ['https://app.example.com'],
            idTokenTtl: 600,
            refreshTokenTtlInDays: 30,
            rotateRefreshToken: false,
            allowTokenExchange: true,
            maxAllowedGrants: 3,
          },
        }),
      );
      expect(metadata).to.deep.include({
        corsAllowedOrigins: ['https://app.example.com'],
        idTokenTtl: 600,
        refreshTokenTtlInDays: 30,
        rotateRefreshToken: false,
      });
      expect(metadata, 'unset').to.not.have.property('alwaysIssueRefreshToken');
      expect(metadata, 'checked by the grant, not the provider').to.not.have.any.keys(
        'allowTokenExchange',
        'maxAllowedGrants',
      );
    });
  });
});
