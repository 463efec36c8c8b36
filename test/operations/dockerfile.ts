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

/** The dependency installation of the image: the `npm ci`/`npm install` command of its RUN instructions. */
export function installCommand(instructions: Instruction[]): string {
  const commands = instructions.filter((instruction) => instruction.keyword === 'RUN')
    .flatMap((instruction) => instruction.args.split('&&').map((part) => part.trim()))
    .filter((command) => /^npm\s+(ci|install|i)\b/.test(command));
  if (commands.length !== 1) throw new Error(`expected one npm install command in the Dockerfile, found ${commands.length}`);
  return commands[0]!;
}

/** `COPY` instructions after the installation, as [sources, destination] (no flags are used in ours). */
export function sourceCopies(instructions: Instruction[]): Array<{ sources: string[]; destination: string }> {
  const installedAt = instructions.findIndex((instruction) => instruction.keyword === 'RUN' && /\bnpm\s+(ci|install)\b/.test(instruction.args));
  return instructions.slice(installedAt + 1).filter((instruction) => instruction.keyword === 'COPY').map((instruction) => {
    if (instruction.args.startsWith('--')) throw new Error(`COPY flags are not understood here: ${instruction.args}`);
    const parts = instruction.args.split(/\s+/);
    return { sources: parts.slice(0, -1), destination: parts.at(-1)! };
  });
}

/** `ENV` values (the `KEY=value` form). */
export function environment(instructions: Instruction[]): Record<string, string> {
  return Object.fromEntries(instructions.filter((instruction) => instruction.keyword === 'ENV')
    .flatMap((instruction) => instruction.args.split(/\s+/).map((pair) => pair.split('=') as [string, string])));
}

/** The exec-form array of an instruction such as `CMD ["node", "bin/server.ts"]` or `HEALTHCHECK … CMD [...]`. */
export function execForm(instructions: Instruction[], keyword: 'CMD' | 'HEALTHCHECK'): string[] {
  const instruction = instructions.findLast((candidate) => candidate.keyword === keyword);
  if (!instruction) throw new Error(`no ${keyword} in the Dockerfile`);
  const json = keyword === 'HEALTHCHECK' ? instruction.args.slice(instruction.args.indexOf('CMD') + 3).trim() : instruction.args;
  return JSON.parse(json) as string[];
}
