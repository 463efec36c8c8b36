/**
 * The stored customizer configuration, as `GET /api/configs/jwt-customizer/access-token` answers it. In a file
 * of its own, without imports, so the console reads the same type.
 */
export interface JwtCustomizerConfig {
  script: string;
  environmentVariables: Record<string, string>;
  /** Fail closed: a script error refuses the token instead of issuing it without custom claims. */
  blockIssuanceOnError: boolean;
  /** What the test endpoint runs the script on when its request brings no token, or no context. */
  tokenSample?: Record<string, unknown>;
  contextSample?: Record<string, unknown>;
  updatedAt: number;
}
