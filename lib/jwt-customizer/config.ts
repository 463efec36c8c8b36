import type { DocumentStore } from '../ports/documents.ts';
import { errors } from '../errors.ts';
import type { ScriptRunner } from './sandbox.ts';
import type { JwtCustomizerConfig } from './config-shape.ts';

export type JwtCustomizerInput = Omit<JwtCustomizerConfig, 'updatedAt'>;

const ID = 'jwt-customizer.access-token';
/** How long a process trusts its cached copy; other processes' changes show up within this time. */
const CACHE_MS = 5000;

/** The stored access-token customizer script, cached per instance and invalidated on local writes. */
export function createJwtCustomizerConfigs(store: DocumentStore) {
  const configs = store.collection<JwtCustomizerConfig & { _id: string }>('configs');
  let cached: { value: JwtCustomizerConfig | null; until: number } | undefined;

  /** Drops the cached copy, and again once the caller's transaction committed: a read before would cache the old one. */
  const forget = () => {
    cached = undefined;
    store.currentTransaction()?.afterCommit(() => {
      cached = undefined;
    });
  };

  const strip = (doc: (JwtCustomizerConfig & { _id: string }) | null): JwtCustomizerConfig | null => {
    if (!doc) return null;
    const { _id, ...config } = doc;
    return config;
  };

  return {
    async get(): Promise<JwtCustomizerConfig | null> {
      if (cached && cached.until > Date.now()) return cached.value;
      const value = strip(await configs.findOne({ _id: ID }));
      cached = { value, until: Date.now() + CACHE_MS };
      return value;
    },
    async put(config: JwtCustomizerInput): Promise<JwtCustomizerConfig> {
      const { tokenSample, contextSample, ...rest } = config;
      const value: JwtCustomizerConfig = {
        ...rest,
        ...(tokenSample && { tokenSample }),
        ...(contextSample && { contextSample }),
        updatedAt: Date.now(),
      };
      await configs.replaceOne({ _id: ID }, { ...value, _id: ID }, { upsert: true });
      forget();
      return value;
    },
    async delete(): Promise<boolean> {
      forget();
      return (await configs.deleteOne({ _id: ID })) === 1;
    },
  };
}

export type JwtCustomizerConfigs = ReturnType<typeof createJwtCustomizerConfigs>;

/** A stored config whose script is empty (what Logto's console saves before one is written) customizes nothing. */
export function hasScript(config: JwtCustomizerConfig | null): config is JwtCustomizerConfig {
  return config !== null && config.script.trim() !== '';
}

/**
 * Refuses a script that could never run: it is compiled in the sandbox, exactly as every run compiles it, and
 * nothing of it runs. A sandbox that cannot answer (busy past the time limit, or failing) is unavailable, not
 * a verdict on the script.
 */
export async function assertScriptCompiles(runner: ScriptRunner, script: string): Promise<void> {
  const outcome = await runner.check(script);
  if (outcome.kind === 'compiled') return;
  if (outcome.code === 'syntax') {
    throw errors.invalid('jwt_customizer.syntax_error', `the script does not compile: ${outcome.message}`, {
      message: outcome.message,
    });
  }
  if (outcome.code === 'memory') {
    throw errors.invalid(
      'jwt_customizer.syntax_error',
      `the script cannot be compiled within the memory limit: ${outcome.message}`,
      {
        message: outcome.message,
      },
    );
  }
  throw errors.dependencyDown('the script sandbox');
}
