import { expect } from 'chai';
import { createSandboxes, createScriptRunner } from '../../lib/jwt-customizer/sandbox.ts';
import type { SandboxOutcome, ScriptInput, ScriptRunner } from '../../lib/jwt-customizer/sandbox.ts';
import { eventually } from '../support/wait.ts';

const MB = 1024 * 1024;

const input: ScriptInput = {
  token: { grantId: 'grant-1', accountId: 'user-1', scope: 'openid' },
  context: {
    user: { id: 'user-1', roles: [{ name: 'admin' }, { name: 'editor' }] },
    grant: { type: 'urn:ietf:params:oauth:grant-type:token-exchange', subjectTokenContext: { ticket: 42 } },
  },
  environmentVariables: { TENANT: 'acme' },
};

function claimsOf(outcome: SandboxOutcome): Record<string, unknown> {
  expect(outcome, JSON.stringify(outcome)).to.have.property('kind', 'claims');
  return (outcome as { claims: Record<string, unknown> }).claims;
}

function errorOf(outcome: SandboxOutcome, code?: string): { code: string; message: string } {
  expect(outcome, JSON.stringify(outcome)).to.have.property('kind', 'error');
  const error = outcome as { code: string; message: string };
  if (code) expect(error.code, error.message).to.equal(code);
  return error;
}

describe('jwt-customizer sandbox', () => {
  let runner: ScriptRunner;
  before(() => {
    runner = createScriptRunner({ timeoutMs: 2000, memoryBytes: 32 * MB, workers: 2 });
  });
  after(() => runner.close());

  describe('claims', () => {
    it('runs a Logto-style async arrow function', async () => {
      const outcome = await runner.run(
        `const getCustomJwtClaims = async ({ token, context, environmentVariables, api }) => {
           return { roles: context.user.roles.map((r) => r.name) };
         };`,
        input,
      );
      expect(claimsOf(outcome)).to.deep.equal({ roles: ['admin', 'editor'] });
    });

    it('runs async and sync function declarations and sync arrows', async () => {
      const scripts = [
        `async function getCustomJwtClaims() { await null; return { style: 1 }; }`,
        `function getCustomJwtClaims() { return { style: 1 }; }`,
        `const getCustomJwtClaims = () => ({ style: 1 });`,
        `let getCustomJwtClaims = function () { return Promise.resolve({ style: 1 }); };`,
      ];
      for (const script of scripts) {
        expect(claimsOf(await runner.run(script, input)), script).to.deep.equal({ style: 1 });
      }
    });

    it('settles thenables and promises in every state as an await would', async () => {
      const settled = [
        [
          `const getCustomJwtClaims = () => ({ then(resolve) { resolve({ via: 'thenable' }); } });`,
          { via: 'thenable' },
        ],
        [
          `const getCustomJwtClaims = async () => { await null; await Promise.resolve(); return { via: 'awaits' }; };`,
          { via: 'awaits' },
        ],
        [
          `const getCustomJwtClaims = () => Promise.resolve({ then(resolve) { resolve({ via: 'nested' }); } });`,
          { via: 'nested' },
        ],
        [
          `const getCustomJwtClaims = () => { const p = Promise.resolve({ via: 'own then' }); p.then = () => {}; return p; };`,
          { via: 'own then' },
        ],
      ] as const;
      for (const [script, claims] of settled)
        expect(claimsOf(await runner.run(script, input)), script).to.deep.equal(claims);
      const failed = [
        `const getCustomJwtClaims = () => Promise.reject(new Error('late'));`,
        `const getCustomJwtClaims = () => ({ then(resolve, reject) { reject(new Error('late')); } });`,
        `const getCustomJwtClaims = () => ({ get then() { throw new Error('late'); } });`,
        `const getCustomJwtClaims = async () => { await null; throw new Error('late'); };`,
      ];
      for (const script of failed)
        expect(errorOf(await runner.run(script, input), 'runtime').message, script).to.include('late');
    });

    it('passes token, context and environmentVariables', async () => {
      const outcome = await runner.run(
        `const getCustomJwtClaims = ({ token, context, environmentVariables }) => ({
           tenant: environmentVariables.TENANT,
           account: token.accountId,
           grantType: context.grant.type,
           ticket: context.grant.subjectTokenContext.ticket,
         });`,
        input,
      );
      expect(claimsOf(outcome)).to.deep.equal({
        tenant: 'acme',
        account: 'user-1',
        grantType: 'urn:ietf:params:oauth:grant-type:token-exchange',
        ticket: 42,
      });
    });

    it('treats undefined and {} as no claims', async () => {
      expect(claimsOf(await runner.run(`const getCustomJwtClaims = async () => {};`, input))).to.deep.equal({});
      expect(claimsOf(await runner.run(`const getCustomJwtClaims = () => ({});`, input))).to.deep.equal({});
    });

    it('JSON round-trips the claims and drops __proto__ keys', async () => {
      const outcome = await runner.run(
        `const getCustomJwtClaims = () => {
           const claims = JSON.parse('{"__proto__": {"admin": true}, "nested": {"__proto__": {"x": 1}}}');
           claims.at = new Date(0);
           claims.skipped = undefined;
           return claims;
         };`,
        input,
      );
      const claims = claimsOf(outcome);
      expect(claims).to.deep.equal({ nested: {}, at: '1970-01-01T00:00:00.000Z' });
      expect(Object.getPrototypeOf(claims)).to.equal(Object.prototype);
      expect(Object.hasOwn(claims, '__proto__')).to.equal(false);
    });

    it('runs queued runs in order and answers each with its own result', async () => {
      const outcomes = await Promise.all(
        [0, 1, 2, 3, 4].map((n) =>
          runner.run(`const getCustomJwtClaims = ({ environmentVariables }) => ({ n: environmentVariables.N });`, {
            ...input,
            environmentVariables: { N: String(n) },
          }),
        ),
      );
      expect(outcomes.map((outcome) => claimsOf(outcome).n)).to.deep.equal(['0', '1', '2', '3', '4']);
    });

    it('answers claims too large to be handed back in shared memory, and the small ones after them', async () => {
      const script = `const getCustomJwtClaims = ({ context }) => ({ note: context.note.repeat(context.times), times: context.times });`;
      const run = (note: string, times: number) => runner.run(script, { ...input, context: { note, times } });
      expect(claimsOf(await run('é☃', 40_000))).to.deep.equal({ note: 'é☃'.repeat(40_000), times: 40_000 });
      expect(claimsOf(await run('é☃', 2))).to.deep.equal({ note: 'é☃é☃', times: 2 });
      const outcomes = await Promise.all([run('a', 100_000), run('b', 1), run('c', 70_000), run('d', 3)]);
      expect(outcomes.map((outcome) => (claimsOf(outcome).note as string).length)).to.deep.equal([
        100_000, 1, 70_000, 3,
      ]);
    });

    it('runs scripts and inputs too large to be handed over in shared memory, and the small ones after them', async () => {
      const big = 'x'.repeat(100_000);
      const script = `const padding = '${big}';
        const getCustomJwtClaims = ({ context }) => ({ padding: padding.length, note: context.note.length });`;
      const withNote = (note: string): ScriptInput => ({ ...input, context: { note } });
      expect(claimsOf(await runner.run(script, withNote(big)))).to.deep.equal({ padding: 100_000, note: 100_000 });
      expect(claimsOf(await runner.run(script, withNote('é')))).to.deep.equal({ padding: 100_000, note: 1 });
      const small = `const getCustomJwtClaims = ({ context }) => ({ note: context.note });`;
      expect(claimsOf(await runner.run(small, withNote('naïve ☃')))).to.deep.equal({ note: 'naïve ☃' });
    });
  });

  describe('denial and errors', () => {
    it('reports api.denyAccess(message) as denied', async () => {
      const outcome = await runner.run(
        `const getCustomJwtClaims = async ({ api }) => { api.denyAccess('no'); return { unreachable: true }; };`,
        input,
      );
      expect(outcome).to.deep.equal({ kind: 'denied', message: 'no' });
    });

    it('keeps the denial even when the script catches the thrown error', async () => {
      const outcome = await runner.run(
        `const getCustomJwtClaims = ({ api }) => { try { api.denyAccess('nope'); } catch {} return { x: 1 }; };`,
        input,
      );
      expect(outcome).to.deep.equal({ kind: 'denied', message: 'nope' });
    });

    it('keeps a denial made after an await, caught or not', async () => {
      const scripts = [
        `const getCustomJwtClaims = async ({ api }) => { await null; api.denyAccess('later'); };`,
        `const getCustomJwtClaims = async ({ api }) => { await null; try { api.denyAccess('later'); } catch {} return { x: 1 }; };`,
      ];
      for (const script of scripts)
        expect(await runner.run(script, input), script).to.deep.equal({ kind: 'denied', message: 'later' });
    });

    it('denies only the run whose api was called, not a later run the script calls a kept api from', async () => {
      const script = `let kept;
        const getCustomJwtClaims = ({ api, token }) => {
          if (kept) { try { kept.denyAccess('stale'); } catch {} }
          kept = api;
          return { grant: token.grantId };
        };`;
      expect(claimsOf(await runner.run(script, input))).to.deep.equal({ grant: 'grant-1' });
      expect(claimsOf(await runner.run(script, input))).to.deep.equal({ grant: 'grant-1' });
    });

    it('reports a thrown error as runtime with its message and no host stack', async () => {
      const error = errorOf(
        await runner.run(`const getCustomJwtClaims = async () => { throw new Error('boom'); };`, input),
        'runtime',
      );
      expect(error.message).to.include('boom');
      expect(error.message).not.to.match(/node:|file:|sandbox-worker|\n\s+at /);
    });

    it('reports an error thrown while evaluating the script as runtime', async () => {
      errorOf(await runner.run(`throw new TypeError('at load');`, input), 'runtime');
      errorOf(await runner.run(`throw null;`, input), 'runtime');
      errorOf(await runner.run(`JSON.parse('{');`, input), 'runtime');
    });

    it('reports syntax errors, module syntax included, as syntax', async () => {
      errorOf(await runner.run(`const getCustomJwtClaims = () => {`, input), 'syntax');
      errorOf(await runner.run(`import fs from 'fs'; const getCustomJwtClaims = () => ({});`, input), 'syntax');
    });

    it('reports a missing getCustomJwtClaims as runtime', async () => {
      const error = errorOf(await runner.run(`const somethingElse = () => ({});`, input), 'runtime');
      expect(error.message).to.include('getCustomJwtClaims');
    });

    it('rejects results that are not plain JSON objects', async () => {
      const results = [
        '42',
        "'claims'",
        'null',
        '[1, 2]',
        'new Map()',
        'true',
        '(() => { const a = {}; a.a = a; return a; })()',
        '({ n: 1n })',
      ];
      for (const result of results) {
        const outcome = await runner.run(`const getCustomJwtClaims = async () => ${result};`, input);
        errorOf(outcome, 'invalid_result');
      }
    });

    it('reports a promise that can never settle without waiting for the deadline', async () => {
      errorOf(await runner.run(`const getCustomJwtClaims = () => new Promise(() => {});`, input), 'timeout');
    });
  });

  describe('isolation', () => {
    it('gives no path from the guest to the host', async () => {
      const outcome = await runner.run(
        `const getCustomJwtClaims = async ({ token, context, environmentVariables, api }) => {
           const results = {};
           const probe = async (name, attempt) => {
             try {
               const value = await attempt();
               results[name] = value === undefined ? 'undefined' : 'reached:' + typeof value;
             } catch (error) {
               results[name] = 'threw';
             }
           };
           await probe('this.constructor.constructor', () => this.constructor.constructor('return process')());
           await probe('sloppy this', () => (function () { return this; })().process);
           await probe('globalThis.process', () => globalThis.process);
           await probe('require', () => require('fs'));
           await probe('import()', () => import('fs'));
           await probe('Function', () => Function('return process')());
           await probe('eval', () => eval('process'));
           await probe('token prototype', () => token.constructor.constructor('return process')());
           await probe('context __proto__', () => context.__proto__.constructor.constructor('return this')().process);
           await probe('roles array', () => context.user.roles.constructor.constructor('return require')());
           await probe('env prototype', () => Object.getPrototypeOf(environmentVariables).constructor.constructor('return globalThis')().require);
           await probe('api function', () => api.denyAccess.constructor('return process')());
           await probe('async function ctor', async () => (async () => {}).constructor('return process')());
           await probe('setTimeout', () => setTimeout);
           await probe('queueMicrotask', () => globalThis.queueMicrotask);
           await probe('fetch', () => globalThis.fetch);
           await probe('console', () => globalThis.console);
           await probe('std module', () => import('std'));
           await probe('os module', () => import('os'));
           return { results, globals: Object.getOwnPropertyNames(globalThis) };
         };`,
        input,
      );
      const { results, globals } = claimsOf(outcome) as { results: Record<string, string>; globals: string[] };
      expect(Object.keys(results)).to.have.length(19);
      for (const [name, result] of Object.entries(results)) {
        expect(result, name).to.be.oneOf(['undefined', 'threw']);
      }
      for (const hostName of [
        'process',
        'require',
        'module',
        'Buffer',
        'setTimeout',
        'setInterval',
        'fetch',
        'console',
        'std',
        'os',
      ]) {
        expect(globals, hostName).not.to.include(hostName);
      }
    });

    it('keeps prototype pollution inside the run that did it', async () => {
      const polluted = await runner.run(
        `Object.prototype.polluted = 'yes';
         Array.prototype.map = () => 'hijacked';
         const getCustomJwtClaims = () => ({ seen: ({}).polluted });`,
        input,
      );
      expect(claimsOf(polluted)).to.deep.equal({ seen: 'yes' });
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);

      const next = await runner.run(
        `const getCustomJwtClaims = () => ({ seen: ({}).polluted ?? 'clean', mapped: [1].map((x) => x + 1) });`,
        input,
      );
      expect(claimsOf(next)).to.deep.equal({ seen: 'clean', mapped: [2] });
    });
  });

  describe('realms', () => {
    // One worker, so consecutive runs meet the same realm; started before the tests, so no deadline includes its start.
    let single: ScriptRunner;
    before(async () => {
      single = createScriptRunner({ timeoutMs: 1000, memoryBytes: 16 * MB, workers: 1 });
      claimsOf(await single.run(`const getCustomJwtClaims = () => ({});`, input));
    });
    after(() => single.close());

    const counting = `let runs = 0;
      const getCustomJwtClaims = ({ context }) => {
        runs += 1;
        if (context.loop) while (true) {}
        if (context.fail) throw new Error('failed');
        return { runs, user: context.user?.id ?? null };
      };`;
    const withContext = (context: Record<string, unknown>): ScriptInput => ({ ...input, context });

    it("keeps a script's realm for its next runs, each reading its own input", async () => {
      const first = claimsOf(await single.run(counting, withContext({ user: { id: 'a' } })));
      const second = claimsOf(await single.run(counting, withContext({ user: { id: 'b' } })));
      expect(second.runs).to.equal(Number(first.runs) + 1);
      expect([first.user, second.user]).to.deep.equal(['a', 'b']);
    });

    it("never shows one script's realm to another, nor to the same script after another ran", async () => {
      claimsOf(await single.run(counting, withContext({})));
      const other = await single.run(`const getCustomJwtClaims = () => ({ runs: typeof runs });`, input);
      expect(claimsOf(other)).to.deep.equal({ runs: 'undefined' });
      expect(claimsOf(await single.run(counting, withContext({}))).runs).to.equal(1);
    });

    it('starts a fresh realm after a run that failed or timed out', async () => {
      claimsOf(await single.run(counting, withContext({})));
      errorOf(await single.run(counting, withContext({ fail: true })), 'runtime');
      expect(claimsOf(await single.run(counting, withContext({}))).runs).to.equal(1);
      errorOf(await single.run(counting, withContext({ loop: true })), 'timeout');
      expect(claimsOf(await single.run(counting, withContext({}))).runs).to.equal(1);
    });
  });

  describe('sandboxes of a service', () => {
    it('never shows a test run the realm of token runs, nor token runs that of a test run', async () => {
      const sandboxes = createSandboxes({ timeoutMs: 2000, memoryBytes: 16 * MB, workers: 1 });
      try {
        const counting = `let runs = 0; const getCustomJwtClaims = () => ({ runs: ++runs });`;
        expect(claimsOf(await sandboxes.issuance.run(counting, input))).to.deep.equal({ runs: 1 });
        expect(claimsOf(await sandboxes.issuance.run(counting, input))).to.deep.equal({ runs: 2 });
        expect(claimsOf(await sandboxes.test.run(counting, input))).to.deep.equal({ runs: 1 });
        expect(claimsOf(await sandboxes.test.run(counting, input))).to.deep.equal({ runs: 1 });
        expect(claimsOf(await sandboxes.issuance.run(counting, input))).to.deep.equal({ runs: 1 });
      } finally {
        await sandboxes.close();
      }
    });

    it('serves token runs while a test run loops, and test runs while token runs loop', async () => {
      const loop = `const getCustomJwtClaims = () => { while (true) {} };`;
      const good = `const getCustomJwtClaims = () => ({ served: true });`;
      const sandboxes = createSandboxes({ timeoutMs: 1500, memoryBytes: 16 * MB, workers: 1 });
      try {
        let settled = 0;
        const testLoop = sandboxes.test.run(loop, input).then((outcome) => {
          settled += 1;
          return outcome;
        });
        expect(claimsOf(await sandboxes.issuance.run(good, input))).to.deep.equal({ served: true });
        expect(settled, 'the token run waited for the test run').to.equal(0);
        errorOf(await testLoop, 'timeout');
        const tokenLoop = sandboxes.issuance.run(loop, input).then((outcome) => {
          settled += 1;
          return outcome;
        });
        expect(claimsOf(await sandboxes.test.run(good, input))).to.deep.equal({ served: true });
        expect(settled, 'the test run waited for the token run').to.equal(1);
        errorOf(await tokenLoop, 'timeout');
      } finally {
        await sandboxes.close();
      }
    });

    it('closes one sandbox without closing the other', async () => {
      const sandboxes = createSandboxes({ timeoutMs: 2000, memoryBytes: 16 * MB, workers: 1 });
      try {
        const good = `const getCustomJwtClaims = () => ({ served: true });`;
        claimsOf(await sandboxes.issuance.run(good, input));
        const looping = sandboxes.test.run(`const getCustomJwtClaims = () => { while (true) {} };`, input);
        await sandboxes.test.close();
        expect(errorOf(await looping, 'runtime').message).to.match(/closed/);
        errorOf(await sandboxes.test.run(good, input), 'runtime');
        expect(claimsOf(await sandboxes.issuance.run(good, input))).to.deep.equal({ served: true });
      } finally {
        await sandboxes.close();
      }
    });
  });

  describe('limits', () => {
    let fast: ScriptRunner;
    let other: ScriptRunner;
    before(() => {
      fast = createScriptRunner({ timeoutMs: 300, memoryBytes: 16 * MB, workers: 1 });
      other = createScriptRunner({ timeoutMs: 2000, memoryBytes: 16 * MB, workers: 1 });
    });
    after(async () => {
      await fast.close();
      await other.close();
    });

    it('times out an infinite loop while the host event loop keeps serving', async () => {
      // Warm the second runner up so its worker start is not part of the measurement.
      claimsOf(await other.run(`const getCustomJwtClaims = () => ({});`, input));
      let ticks = 0;
      const interval = setInterval(() => ticks++, 10);
      let loopSettled = false;
      try {
        const loop = fast.run(`const getCustomJwtClaims = () => { while (true) {} };`, input).then((outcome) => {
          loopSettled = true;
          return outcome;
        });
        const concurrent = await other.run(`const getCustomJwtClaims = () => ({ concurrent: true });`, input);
        expect(claimsOf(concurrent)).to.deep.equal({ concurrent: true });
        expect(loopSettled, 'the good script finished while the loop was still running').to.equal(false);

        const started = Date.now();
        errorOf(await loop, 'timeout');
        expect(Date.now() - started).to.be.below(5000);
        expect(ticks, 'setInterval kept ticking during the loop').to.be.at.least(5);
      } finally {
        clearInterval(interval);
      }
    });

    it('times out a loop that the script tries to catch', async () => {
      const outcome = await fast.run(
        `const getCustomJwtClaims = () => { for (;;) { try { while (true) {} } catch (e) {} } };`,
        input,
      );
      errorOf(outcome, 'timeout');
    });

    it('times out an infinite loop after an await', async () => {
      errorOf(
        await fast.run(`const getCustomJwtClaims = async () => { await null; while (true) {} };`, input),
        'timeout',
      );
    });

    it('times out an endless chain of promise jobs', async () => {
      errorOf(await fast.run(`const getCustomJwtClaims = async () => { for (;;) await null; };`, input), 'timeout');
    });

    it('times out an infinite loop at the top level of the script', async () => {
      errorOf(await fast.run(`while (true) {}`, input), 'timeout');
    });

    it('runs the next script correctly after a timeout', async () => {
      errorOf(await fast.run(`const getCustomJwtClaims = () => { while (true) {} };`, input), 'timeout');
      const outcome = await fast.run(
        `const getCustomJwtClaims = async ({ environmentVariables }) => ({ t: environmentVariables.TENANT });`,
        input,
      );
      expect(claimsOf(outcome)).to.deep.equal({ t: 'acme' });
    });

    it('enforces the limit from the host when the guest rarely yields to the interrupt handler', async () => {
      // Each iteration is one slow native call, so QuickJS polls its interrupt handler only every few
      // seconds; the host must kill the worker and start a fresh one.
      const started = Date.now();
      errorOf(await fast.run(`const getCustomJwtClaims = () => { for (;;) 'x'.repeat(1e5); };`, input), 'timeout');
      expect(Date.now() - started).to.be.below(3000);
      // A fresh worker serves the runs after it. Its start-up counts toward the first one's deadline (deadlines
      // count from the call), which a loaded machine can spend whole: the pool must answer one soon, not this one.
      const after = await eventually(
        async () => {
          const outcome = await fast.run(`const getCustomJwtClaims = () => ({ after: true });`, input);
          return outcome.kind === 'claims' && outcome;
        },
        { what: 'a run served by the fresh worker' },
      );
      expect(claimsOf(after)).to.deep.equal({ after: true });
    });

    it('stops huge allocations without affecting the host', async () => {
      const scripts = [
        `const getCustomJwtClaims = () => ({ s: 'x'.repeat(1e9) });`,
        `const getCustomJwtClaims = () => { const a = []; for (let i = 0; ; i++) a.push({ i, s: 'x' + i }); };`,
        `const getCustomJwtClaims = async () => { let s = 'x'; for (;;) { await null; s += s; } };`,
      ];
      for (const script of scripts) {
        const error = errorOf(await other.run(script, input));
        expect(error.code, error.message).to.be.oneOf(['memory', 'runtime']);
      }
      errorOf(await other.run(scripts[0] ?? '', input), 'memory');
      claimsOf(await other.run(`const getCustomJwtClaims = () => ({ fine: true });`, input));
    });

    it('turns a stack overflow into a runtime error', async () => {
      const error = errorOf(
        await other.run(`const f = () => f(); const getCustomJwtClaims = () => f();`, input),
        'runtime',
      );
      expect(error.message).to.include('stack overflow');
    });
  });

  describe('pool', () => {
    const loop = `const getCustomJwtClaims = () => { while (true) {} };`;
    /** Keeps allocating typed arrays (storage QuickJS does not count) until the worker's memory runs out. */
    const typedArrayHog = `const getCustomJwtClaims = () => {
      const kept = [];
      for (let i = 0; i < 1000; i++) kept.push(new Uint8Array(1 << 20));
      return { n: kept.length };
    };`;

    it('bounds typed-array storage by the memory limit and serves the next run from a fresh worker', async () => {
      const bounded = createScriptRunner({ timeoutMs: 5000, memoryBytes: 16 * MB, workers: 1 });
      try {
        const within = await bounded.run(
          `const getCustomJwtClaims = () => ({ n: new Uint8Array(8 * 1024 * 1024).length });`,
          input,
        );
        expect(claimsOf(within)).to.deep.equal({ n: 8 * MB });
        const hog = await bounded.run(typedArrayHog, input);
        errorOf(hog, 'memory');
        expect(claimsOf(await bounded.run(`const getCustomJwtClaims = () => ({ after: true });`, input))).to.deep.equal(
          { after: true },
        );
      } finally {
        await bounded.close();
      }
    });

    it('serves the runs handed over behind one that exhausted the memory from a fresh worker', async () => {
      const bounded = createScriptRunner({ timeoutMs: 5000, memoryBytes: 16 * MB, workers: 1 });
      try {
        claimsOf(await bounded.run(`const getCustomJwtClaims = () => ({});`, input));
        // The worker is busy with the first run while the others queue: they reach it together, after it.
        const busy = bounded.run(
          `const getCustomJwtClaims = () => { const end = Date.now() + 100; while (Date.now() < end) {} return { busy: true }; };`,
          input,
        );
        const hog = bounded.run(typedArrayHog, input);
        const after = [1, 2, 3].map((n) => bounded.run(`const getCustomJwtClaims = () => ({ n: ${n} });`, input));
        expect(claimsOf(await busy)).to.deep.equal({ busy: true });
        errorOf(await hog, 'memory');
        expect((await Promise.all(after)).map((outcome) => claimsOf(outcome).n)).to.deep.equal([1, 2, 3]);
      } finally {
        await bounded.close();
      }
    });

    it('serves a good script while a loop holds another worker', async () => {
      const pool = createScriptRunner({ timeoutMs: 1500, memoryBytes: 16 * MB, workers: 2 });
      try {
        // Both runs queue before the first worker is ready, so they reach it together: the good one is taken back
        // from behind the loop and served by a second worker.
        let loopSettled = false;
        const looping = pool.run(loop, input).then((outcome) => {
          loopSettled = true;
          return outcome;
        });
        const good = await pool.run(`const getCustomJwtClaims = () => ({ served: true });`, input);
        expect(claimsOf(good)).to.deep.equal({ served: true });
        expect(loopSettled, 'the good script waited for the loop').to.equal(false);
        errorOf(await looping, 'timeout');
      } finally {
        await pool.close();
      }
    });

    it('counts the time limit from the call, so runs queued behind a loop fail at their own deadline', async () => {
      const timeoutMs = 400;
      const single = createScriptRunner({ timeoutMs, memoryBytes: 16 * MB, workers: 1 });
      try {
        claimsOf(await single.run(`const getCustomJwtClaims = () => ({});`, input));
        const started = Date.now();
        const elapsed = await Promise.all(
          [0, 1, 2].map(async () => {
            errorOf(await single.run(loop, input), 'timeout');
            return Date.now() - started;
          }),
        );
        expect(Math.max(...elapsed), `answered after ${elapsed.join(', ')} ms`).to.be.below(2 * timeoutMs);
        claimsOf(await single.run(`const getCustomJwtClaims = () => ({ after: true });`, input));
      } finally {
        await single.close();
      }
    });

    it('refuses a pool without workers', () => {
      expect(() => createScriptRunner({ timeoutMs: 100, memoryBytes: MB, workers: 0 })).to.throw(RangeError);
    });
  });

  describe('close', () => {
    it('answers running, queued and later runs and leaves nothing running', async () => {
      const closing = createScriptRunner({ timeoutMs: 2000, memoryBytes: 16 * MB, workers: 1 });
      // A first run leaves the worker started and idle, so the next run goes to it at once.
      claimsOf(await closing.run(`const getCustomJwtClaims = () => ({});`, input));
      const running = closing.run(`const getCustomJwtClaims = () => { while (true) {} };`, input);
      const queued = closing.run(`const getCustomJwtClaims = () => ({ queued: true });`, input);
      const started = performance.now();
      await closing.close();
      for (const outcome of await Promise.all([running, queued])) {
        expect(errorOf(outcome, 'runtime').message).to.match(/closed/);
      }
      expect(performance.now() - started, 'closing did not wait for the time limit').to.be.below(1000);
      errorOf(await closing.run(`const getCustomJwtClaims = () => ({});`, input), 'runtime');
    });

    it('closes a runner that never ran, which then answers every run as closed', async () => {
      const idle = createScriptRunner({ timeoutMs: 1000, memoryBytes: 16 * MB, workers: 1 });
      await idle.close();
      expect(errorOf(await idle.run(`const getCustomJwtClaims = () => ({});`, input), 'runtime').message).to.match(
        /closed/,
      );
    });
  });
});
