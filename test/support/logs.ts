import { pino, type Logger } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  err?: { type?: string; message?: string; stack?: string };
  [field: string]: unknown;
}

/** pino's numeric level for `error`. */
export const ERROR = 50;

/** A logger that keeps every line it writes, parsed, for tests that check what the service logs. */
export function capturingLogger(): { logger: Logger; lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  );
  return { logger, lines, raw };
}
