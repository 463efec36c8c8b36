import { expect } from 'chai';
import { resolveSettings } from '../../lib/settings.ts';
import { ConfigurationError } from '../../lib/config.ts';

describe('observability and rate-limit settings', () => {
  it('refuses a short METRICS_TOKEN and limits that are not whole numbers', () => {
    expect(() => resolveSettings({ METRICS_TOKEN: 'short' })).to.throw(
      ConfigurationError,
      /METRICS_TOKEN: at least 16 characters/,
    );
    expect(() => resolveSettings({ AUTH_FAILURE_RATE_LIMIT: '-1' })).to.throw(
      ConfigurationError,
      /AUTH_FAILURE_RATE_LIMIT/,
    );
    expect(() => resolveSettings({ AUTH_FAILURE_RATE_WINDOW_SECONDS: '0' })).to.throw(
      ConfigurationError,
      /AUTH_FAILURE_RATE_WINDOW_SECONDS/,
    );
    expect(() => resolveSettings({ SUBJECT_TOKEN_RATE_LIMIT: 'many' })).to.throw(
      ConfigurationError,
      /SUBJECT_TOKEN_RATE_LIMIT/,
    );
  });

  it('defaults to 30 failed authentications a minute and 1000 subject tokens a minute, with /metrics open', () => {
    const settings = resolveSettings({});
    expect(settings).to.include({
      AUTH_FAILURE_RATE_LIMIT: 30,
      AUTH_FAILURE_RATE_WINDOW_SECONDS: 60,
      SUBJECT_TOKEN_RATE_LIMIT: 1000,
    });
    expect(settings.METRICS_TOKEN).to.equal(undefined);
  });
});
