import { useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { Field, LinesField, Switch } from '../../components/field.tsx';
import { CodeField } from './code-field.tsx';
import type { JwtCustomizerConfig as CustomizerConfig } from '../../../../lib/jwt-customizer/config-shape.ts';

const PATH = '/configs/jwt-customizer/access-token';

const TEMPLATE = `/**
 * Runs for every access token. Return the claims to add; api.denyAccess(message) refuses the token.
 */
const getCustomJwtClaims = async ({ token, context, environmentVariables, api }) => {
  return { roles: context.user?.roles?.map((role) => role.name) ?? [] };
};
`;
const SAMPLE_TOKEN = { sub: 'user-id', client_id: 'app-id', scope: 'openid' };
const SAMPLE_CONTEXT = {
  grant: { type: 'authorization_code' },
  user: { id: 'user-id', username: 'alice', roles: [{ name: 'support' }] },
};

const json = (value: unknown) => JSON.stringify(value, null, 2);
const variableLines = (variables: Record<string, string>) =>
  Object.entries(variables).map(([name, value]) => `${name}=${value}`);

function parseVariables(lines: string[]): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of lines.filter((text) => text.trim())) {
    const equals = line.indexOf('=');
    if (equals < 0) variables[line.trim()] = '';
    else variables[line.slice(0, equals).trim()] = line.slice(equals + 1);
  }
  return variables;
}

/** JSON text of an object, or the reason it is not one (shown under its field). */
function parseObject(text: string): { value?: Record<string, unknown>; problem?: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { problem: 'must be a JSON object' };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { problem: `is not JSON: ${(error as Error).message}` };
  }
}

/** What the API said about the script: a syntax error's message belongs under the editor. */
function scriptError(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'jwt_customizer.syntax_error') return error.message;
  return error.fieldError('script');
}

export function CustomJwt() {
  const stored = useLoad(async () => {
    try {
      return await api<CustomizerConfig>('GET', PATH);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }, []);
  if (stored.error)
    return (
      <>
        <h1>Custom JWT</h1>
        <ErrorText error={stored.error} />
      </>
    );
  if (stored.data === undefined) return <Loading what="the customizer" />;
  return <Editor stored={stored.data} onStored={stored.set} />;
}

function Editor(props: { stored: CustomizerConfig | null; onStored: (config: CustomizerConfig | null) => void }) {
  const { stored } = props;
  const [script, setScript] = useState(stored?.script ?? TEMPLATE);
  const [variables, setVariables] = useState(variableLines(stored?.environmentVariables ?? {}));
  const [failClosed, setFailClosed] = useState(stored?.blockIssuanceOnError ?? false);
  const [tokenText, setTokenText] = useState(json(stored?.tokenSample ?? SAMPLE_TOKEN));
  const [contextText, setContextText] = useState(json(stored?.contextSample ?? SAMPLE_CONTEXT));
  const [sampleProblems, setSampleProblems] = useState<{ token?: string; context?: string }>({});
  const [result, setResult] = useState<Record<string, unknown>>();
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const test = useAction();
  const remove = useAction();

  /** The samples as objects, or undefined after showing what is wrong with them. */
  function samples(): { token: Record<string, unknown>; context: Record<string, unknown> } | undefined {
    const token = parseObject(tokenText);
    const context = parseObject(contextText);
    setSampleProblems({
      token: token.problem && `The sample token ${token.problem}`,
      context: context.problem && `The sample context ${context.problem}`,
    });
    return token.value && context.value ? { token: token.value, context: context.value } : undefined;
  }

  const fields = [
    'script',
    'environmentVariables',
    'blockIssuanceOnError',
    'tokenSample',
    'contextSample',
    'token',
    'context',
  ];
  const scriptProblem = scriptError(save.error) ?? scriptError(test.error);
  return (
    <>
      <h1>Custom JWT</h1>
      <p class="hint">
        A script that adds claims to every access token, run in a sandbox at issuance.{' '}
        {stored
          ? `Stored ${new Date(stored.updatedAt).toLocaleString()}.`
          : 'No script is stored: tokens carry no custom claims.'}
      </p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setSaved(false);
          test.reset();
          const parsed = samples();
          if (!parsed) return;
          const config = await save.run(() =>
            api<CustomizerConfig>('PUT', PATH, {
              body: {
                script,
                environmentVariables: parseVariables(variables),
                blockIssuanceOnError: failClosed,
                tokenSample: parsed.token,
                contextSample: parsed.context,
              },
            }),
          );
          if (config) {
            setSaved(true);
            props.onStored(config);
          }
        }}
      >
        <Section title="Script">
          <CodeField
            label="Script"
            initialValue={script}
            onChange={setScript}
            error={scriptProblem}
            hint="Defines getCustomJwtClaims({ token, context, environmentVariables, api }). No network, files or timers."
          />
          <LinesField
            label="Environment variables"
            value={variables}
            onInput={setVariables}
            error={save.fieldError('environmentVariables') ?? test.fieldError('environmentVariables')}
            hint="One NAME=value per line; the script reads them as environmentVariables.NAME. Stored with the script, never put in tokens."
          />
          <Switch
            label="Fail closed"
            checked={failClosed}
            onChange={setFailClosed}
            description={
              failClosed
                ? 'On: when the script fails or times out, the token request fails (invalid_request).'
                : 'Off (fail open): when the script fails or times out, the token is issued without custom claims.'
            }
          />
        </Section>
        <Section
          title="Test"
          description="Runs the script above (saved or not) on these samples, in the sandbox, and shows the claims it adds."
        >
          <Field label="Sample token (JSON)" error={sampleProblems.token ?? test.fieldError('token')}>
            {(control) => (
              <textarea
                {...control}
                rows={5}
                value={tokenText}
                onInput={(event) => setTokenText(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Sample context (JSON)" error={sampleProblems.context ?? test.fieldError('context')}>
            {(control) => (
              <textarea
                {...control}
                rows={8}
                value={contextText}
                onInput={(event) => setContextText(event.currentTarget.value)}
              />
            )}
          </Field>
          <div class="actions">
            <button
              type="button"
              class="secondary"
              disabled={test.pending}
              onClick={async () => {
                setResult(undefined);
                save.reset();
                const parsed = samples();
                if (!parsed) return;
                const claims = await test.run(() =>
                  api<Record<string, unknown>>('POST', '/configs/jwt-customizer/test', {
                    body: {
                      script,
                      environmentVariables: parseVariables(variables),
                      token: parsed.token,
                      context: parsed.context,
                    },
                  }),
                );
                if (claims) setResult(claims);
              }}
            >
              Run test
            </button>
          </div>
          <div class="test-result" role="region" aria-label="Test result">
            {test.pending && (
              <p class="loading" role="status">
                Running…
              </p>
            )}
            {result && (
              <>
                <p class="notice" role="status">
                  The script added these claims:
                </p>
                {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the block for those who look it up by name. */}
                <pre aria-label="Resulting claims">{json(result)}</pre>
              </>
            )}
            <ErrorText error={scriptError(test.error) ? undefined : test.actionError(fields)} />
          </div>
        </Section>
        <div class="actions">
          <button type="submit" disabled={save.pending}>
            Save script
          </button>
          {stored && (
            <button
              type="button"
              class="danger"
              disabled={remove.pending}
              onClick={async () => {
                const done = await remove.run(async () => {
                  await api('DELETE', PATH);
                  return true;
                });
                if (done) props.onStored(null);
              }}
            >
              Delete script
            </button>
          )}
          <span role="status" class="status">
            {saved ? 'Saved: new tokens carry these claims.' : ''}
          </span>
        </div>
        <ErrorText error={scriptError(save.error) ? undefined : save.actionError(fields)} />
        <ErrorText error={remove.error} />
      </form>
    </>
  );
}
