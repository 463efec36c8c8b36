import { readFileSync } from 'node:fs';

/** One instruction of a Dockerfile: its keyword and its arguments, continuation lines joined. */
export interface Instruction {
  keyword: string;
  args: string;
}

/** Parses the Dockerfile's instructions (comments and blank lines dropped, `\` continuations joined). */
export function readDockerfile(path: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!pending && /^\s*(#|$)/.test(line)) continue;
    if (line.trimEnd().endsWith('\\')) {
      pending += `${line.trimEnd().slice(0, -1)} `;
      continue;
    }
    const text = (pending + line).trim();
    pending = '';
    const [keyword = ''] = text.split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), args: text.slice(keyword.length).trim() });
  }
  return instructions;
}

/** The instructions of the image's last stage, the one that ships (earlier stages only build files it copies). */
export function finalStage(instructions: Instruction[]): Instruction[] {
  const from = instructions.findLastIndex((instruction) => instruction.keyword === 'FROM');
  return instructions.slice(from);
}

/**
 * `COPY` instructions of the last stage after its installation, as [sources, destination], sources relative to the
 * repository. `COPY --from=<stage>` takes what a build stage made from the repository's files: its paths are made
 * relative to that stage's `WORKDIR`, where the same build in a checkout (`npm install`) leaves them too.
 */
export function sourceCopies(instructions: Instruction[]): Array<{ sources: string[]; destination: string }> {
  const stage = finalStage(instructions);
  const installedAt = stage.findIndex(
    (instruction) => instruction.keyword === 'RUN' && /\bnpm\s+(ci|install)\b/.test(instruction.args),
  );
  return stage
    .slice(installedAt + 1)
    .filter((instruction) => instruction.keyword === 'COPY')
    .map((instruction) => {
      const from = /^--from=(\S+)\s+/.exec(instruction.args);
      const args = from ? instruction.args.slice(from[0].length) : instruction.args;
      if (args.startsWith('--')) throw new Error(`COPY flags are not understood here: ${instruction.args}`);
      const parts = args.split(/\s+/);
      const workdir = from ? stageWorkdir(instructions, from[1]!) : '';
      const sources = parts.slice(0, -1).map((source) => {
        if (!from) return source;
        if (!source.startsWith(`${workdir}/`))
          throw new Error(`COPY --from=${from[1]} takes ${source}, outside its WORKDIR ${workdir}`);
        return source.slice(workdir.length + 1);
      });
      return { sources, destination: parts.at(-1)! };
    });
}

/** The `WORKDIR` of the stage named `name` (`FROM … AS name`). */
function stageWorkdir(instructions: Instruction[], name: string): string {
  const start = instructions.findIndex(
    (instruction) => instruction.keyword === 'FROM' && new RegExp(`\\sAS\\s+${name}$`, 'i').test(instruction.args),
  );
  if (start < 0) throw new Error(`no build stage named ${name}`);
  const next = instructions.findIndex((instruction, index) => index > start && instruction.keyword === 'FROM');
  const workdir = instructions
    .slice(start, next < 0 ? undefined : next)
    .findLast((instruction) => instruction.keyword === 'WORKDIR');
  if (!workdir) throw new Error(`the build stage ${name} sets no WORKDIR`);
  return workdir.args.replace(/\/+$/, '');
}

/** `ENV` values (the `KEY=value` form). */
export function environment(instructions: Instruction[]): Record<string, string> {
  return Object.fromEntries(
    instructions
      .filter((instruction) => instruction.keyword === 'ENV')
      // `KEY=VALUE` pairs; a value may itself hold `=` (NODE_OPTIONS=--flag=value).
      .flatMap((instruction) =>
        instruction.args
          .split(/\s+/)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      ),
  );
}

/** The exec-form array of an instruction such as `CMD ["node", "bin/server.ts"]` or `HEALTHCHECK … CMD [...]`. */
export function execForm(instructions: Instruction[], keyword: 'CMD' | 'HEALTHCHECK'): string[] {
  const instruction = instructions.findLast((candidate) => candidate.keyword === keyword);
  if (!instruction) throw new Error(`no ${keyword} in the Dockerfile`);
  const json =
    keyword === 'HEALTHCHECK' ? instruction.args.slice(instruction.args.indexOf('CMD') + 3).trim() : instruction.args;
  return JSON.parse(json) as string[];
}
